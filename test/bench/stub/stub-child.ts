import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** What the parent asks the stub process (see stub-process.ts); each is answered by its `type`. */
export type StubCommand =
  | { type: 'reset' }
  | { type: 'stats' }
  | { type: 'record' }
  | { type: 'dump'; file: string }
  | { type: 'stall'; on: boolean };

export interface StubStats {
  /** Chat requests since the last reset. */
  requests: number;
  /** Request body bytes received since the last reset. */
  bodyBytes: number;
  /** CPU time of the stub process since the last reset. */
  cpuMs: number;
}

/** The bench stub (stub-process.ts) running in a child process. */
export interface StubChild {
  readonly baseUrl: string;
  reset(): Promise<void>;
  stats(): Promise<StubStats>;
  /** Keeps the bodies of the chat requests that follow, until `dump` writes them to `file`. */
  record(): Promise<void>;
  dump(file: string): Promise<void>;
  /** While on, every reply streams one chunk and then hangs until the client goes away. */
  stall(on: boolean): Promise<void>;
  close(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./stub-process.ts', import.meta.url));

export async function startStubChild(): Promise<StubChild> {
  const child: ChildProcess = fork(SCRIPT, [], {
    execArgv: ['--import', 'jiti/register'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let queue = Promise.resolve<unknown>(undefined);
  /** One command at a time, answered by a message of the same type. */
  const ask = <T>(command: StubCommand): Promise<T> => {
    const next = queue.then(
      () =>
        new Promise<T>((resolve, reject) => {
          const onMessage = (message: { type: string }) => {
            if (message.type !== command.type) return;
            child.off('message', onMessage);
            child.off('exit', onExit);
            resolve(message as T);
          };
          const onExit = (code: number | null) => reject(new Error(`stub process exited with ${code}`));
          child.on('message', onMessage);
          child.once('exit', onExit);
          child.send(command);
        }),
    );
    queue = next.catch(() => undefined);
    return next;
  };
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`stub process exited with ${String(code)} before it was ready`);
    }),
  ])) as [{ type: 'ready'; baseUrl: string }];
  return {
    baseUrl: ready.baseUrl,
    reset: async () => void (await ask({ type: 'reset' })),
    stats: async () => {
      const { requests, bodyBytes, cpuMs } = await ask<StubStats & { type: string }>({ type: 'stats' });
      return { requests, bodyBytes, cpuMs };
    },
    record: async () => void (await ask({ type: 'record' })),
    dump: async (file) => void (await ask({ type: 'dump', file })),
    stall: async (on) => void (await ask({ type: 'stall', on })),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
