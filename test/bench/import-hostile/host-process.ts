import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../../helpers/temp-dir';

const BUILT_CLI = fileURLToPath(new URL('../../../out/main/cli.js', import.meta.url));

export interface HostProcess {
  pid: number;
  port: number;
  /** The launch token (the upload carries it in its query). */
  token: string;
  wsUrl: string;
  origin: string;
  /** Peak resident memory of the process so far (VmHWM), MB. */
  peakMb(): number;
  residentMb(): number;
  stop(): Promise<void>;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * The real web host, as `fleetscope serve` runs it from the build (`npm run bench` builds first),
 * in a child process with a fresh data folder: its memory and event loop are measured from here.
 */
export async function startHostProcess(): Promise<HostProcess> {
  if (!existsSync(BUILT_CLI)) throw new Error(`No build at ${BUILT_CLI}: run \`npm run build\` first.`);
  const temp = makeTempDir('fleetscope-bench-host-');
  // The benchmark never loads the page: a stand-in keeps it independent of the renderer build.
  const rendererDir = join(temp.dir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>stand-in</title>');
  const dataDir = join(temp.dir, 'data');
  const token = `bench${Math.random().toString(36).slice(2)}${Date.now()}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [BUILT_CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--renderer-dir', rendererDir],
    { env: { ...process.env, FLEETSCOPE_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('The host process did not start.');
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += String(chunk);
      const match = /running at http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`The host exited (${code}) before it was ready: ${output}`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid,
    port,
    token,
    wsUrl: `ws://127.0.0.1:${port}/ws?token=${token}`,
    origin: `http://127.0.0.1:${port}`,
    peakMb: () => statusMb(pid, 'VmHWM'),
    residentMb: () => statusMb(pid, 'VmRSS'),
    async stop() {
      child.kill('SIGINT');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      temp.remove();
    },
  };
}
