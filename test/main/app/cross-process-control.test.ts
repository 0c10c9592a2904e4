import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetInput, RunEvent } from '../../../src-shared/domain';
import { AppError, createApp, type FleetscopeApp } from '../../../src-main/app';
import { askOwner } from '../../../src-main/app/services/run-requests';
import { makeTempDir } from '../../helpers/temp-dir';

const root = join(import.meta.dirname, '../../..');
const cliChild = join(root, 'test/helpers/cli-child.mjs');

/** Two scripted agents taking turns without end, each reply streamed for about a quarter second. */
const chatter: FleetInput = {
  version: 1,
  name: 'chatter',
  agents: ['ping', 'pong'].map((name) => ({
    name,
    type: 'scripted' as const,
    loop: true,
    script: [{ content: `${name} says something rather long. `.repeat(3), chunkSize: 10, delayMs: 25 }],
  })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 500 },
};

/** A scripted agent and a person taking turns: the person is asked after every reply. */
const asking: FleetInput = {
  version: 1,
  name: 'asking',
  agents: [
    { name: 'bot', type: 'scripted', loop: true, script: [{ content: 'Which colour next?' }] },
    { name: 'me', type: 'human' },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 20 },
};

/** `fleetscope run FLEET --json` in a child process of its own, its stdin open and never written. */
class ChildRun {
  readonly child: ChildProcessWithoutNullStreams;
  readonly printed: RunEvent[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private partial = '';

  constructor(fleetPath: string, dataDir: string) {
    this.child = spawn(
      process.execPath,
      [cliChild, 'run', fleetPath, '--task', 'Go on', '--json', '--data-dir', dataDir],
      { cwd: root, env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child.stdout.on('data', (chunk: Buffer) => {
      const lines = (this.partial + chunk.toString()).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        const parsed = JSON.parse(line) as RunEvent | { sessionId?: undefined };
        if ('seq' in parsed) this.printed.push(parsed);
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  get sessionId(): string | undefined {
    return this.printed[0]?.sessionId;
  }

  /** `pending`, failing with what the child printed to stderr and whether it exited. */
  async said<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      if (error instanceof AppError)
        error.message += ` [child exit ${this.child.exitCode}; stderr: ${this.stderr.slice(-1500)}]`;
      throw error;
    }
  }
}

/** Waits until `check` holds, polling; fails with `what` after `ms` (a bound, not a speed goal). */
async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('controls in the app for a run that `fleetscope run` drives in another process', () => {
  const temp = makeTempDir('fleetscope-remote-control-');
  const dataDir = join(temp.dir, 'data');
  let app: FleetscopeApp;
  const children: ChildRun[] = [];

  /** The session's events as the store holds them (what any view of it reads). */
  const stored = (sessionId: string): RunEvent[] => [...app.store.iterateEvents(sessionId, 0, 1_000_000)];
  const after = (events: RunEvent[], seq: number) => events.filter((event) => event.seq > seq);
  const start = async (fleet: FleetInput, name: string): Promise<ChildRun> => {
    const path = join(temp.dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(fleet));
    const run = new ChildRun(path, dataDir);
    children.push(run);
    await until(`${name} to start`, () => run.sessionId !== undefined, 60_000);
    return run;
  };

  beforeAll(() => {
    // The app as `fleetscope serve` or the window opens it: it watches the shared store. Its
    // controls wait for the child as long as a loaded machine may need (a bound, not a speed goal).
    app = createApp({
      dataDir,
      surface: 'browser',
      seedSamples: false,
      pingIntervalMs: 0,
      runRequestTimeoutMs: 60_000,
    });
  });
  afterAll(async () => {
    for (const run of children) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await app.close();
    temp.remove();
  });

  it('pauses, steps, resumes and stops the run; a frozen owner gets a clear error in bounded time', async () => {
    const run = await start(chatter, 'chatter');
    const sessionId = run.sessionId!;
    await until('a first reply', () => stored(sessionId).some((event) => event.kind === 'message.completed'));

    expect(await run.said(app.call('runs.control', { sessionId, action: 'pause' }))).toEqual({
      sessionId,
      status: 'paused',
    });
    await until('the run to pause', () => app.store.getSession(sessionId)?.summary.status === 'paused');
    const pausedAt = stored(sessionId).findLast(
      (event) => event.kind === 'session.status' && event.payload.status === 'paused',
    )!;
    expect(pausedAt).toBeDefined();
    // Paused: the reply in flight ends, and no other starts until asked.
    await until('the reply in flight to end', () =>
      stored(sessionId).every(
        (event) =>
          event.kind !== 'message.started' ||
          stored(sessionId).some(
            (done) =>
              done.kind === 'message.completed' && done.payload.message.id === event.payload.messageId,
          ),
      ),
    );
    const settled = stored(sessionId).at(-1)!.seq;

    // Step: one more round (one reply), then paused again.
    const stepped = await run.said(app.call('runs.control', { sessionId, action: 'step' }));
    expect(stepped.sessionId).toBe(sessionId);
    await until('the stepped reply', () =>
      after(stored(sessionId), settled).some((event) => event.kind === 'message.completed'),
    );
    await until('the run to pause after its step', () =>
      after(stored(sessionId), settled).some(
        (event) => event.kind === 'session.status' && event.payload.status === 'paused',
      ),
    );
    const stepEvents = after(stored(sessionId), settled);
    expect(stepEvents.filter((event) => event.kind === 'message.started')).toHaveLength(1);

    // Resume: it runs on by itself.
    const resumedFrom = stored(sessionId).at(-1)!.seq;
    expect(await run.said(app.call('runs.control', { sessionId, action: 'resume' }))).toMatchObject({
      status: 'running',
    });
    await until(
      'two more replies',
      () =>
        after(stored(sessionId), resumedFrom).filter((event) => event.kind === 'message.completed').length >=
        2,
    );
    expect(after(stored(sessionId), resumedFrom)[0]).toMatchObject({
      kind: 'session.status',
      payload: { status: 'running' },
    });

    // A frozen owner (alive, not answering): the request is withdrawn and the requester is told
    // it did not answer, never that it ended (askOwner as the app calls it, with a short wait).
    run.child.kill('SIGSTOP');
    const frozen = await askOwner(app.store, sessionId, 'pause', null, 2_000).catch(
      (error: unknown) => error,
    );
    run.child.kill('SIGCONT');
    expect(frozen).toBeInstanceOf(AppError);
    expect((frozen as AppError).code).toBe('unavailable');
    expect((frozen as AppError).message).toMatch(/is running but did not answer within 2 s/);
    expect(app.store.runRequests.open()).toEqual([]);
    expect(app.store.getSession(sessionId)?.summary.status).toBe('running');

    // Stop: the child's run ends as cancelled, as if stopped in its own terminal.
    const stopFrom = stored(sessionId).at(-1)!.seq;
    await run.said(app.call('runs.control', { sessionId, action: 'stop' }));
    expect(await run.exited).toBe(1);
    const ending = after(stored(sessionId), stopFrom);
    expect(ending.some((event) => event.kind === 'session.status' && event.payload.status === 'paused')).toBe(
      false,
    );
    expect(ending.at(-1)).toMatchObject({
      kind: 'session.stopped',
      payload: { status: 'stopped', stopReason: 'cancelled' },
    });
    expect(app.store.getSession(sessionId)?.summary.status).toBe('stopped');
    // The run has ended: nothing left to control.
    const late = await app
      .call('runs.control', { sessionId, action: 'pause' })
      .catch((error: unknown) => error);
    expect((late as AppError).code).toBe('not-found');
    expect((late as AppError).message).toMatch(/No run in progress/);
  }, 120_000);

  it('answers a person question in the child, and says so once the child is gone', async () => {
    const run = await start(asking, 'asking');
    const sessionId = run.sessionId!;
    const asked = () =>
      stored(sessionId).filter(
        (event): event is Extract<RunEvent, { kind: 'human.requested' }> => event.kind === 'human.requested',
      );
    await until('the first question', () => asked().length === 1);
    const first = asked()[0]!;

    const wrong = await app
      .call('runs.answer', { sessionId, requestId: 'not-a-question', text: 'x' })
      .catch((error: unknown) => error);
    expect((wrong as AppError).code).toBe('conflict');

    const answered = await app.call('runs.answer', {
      sessionId,
      requestId: first.payload.requestId,
      text: 'Blue, from the app',
    });
    expect(answered.sessionId).toBe(sessionId);
    await until('the second question', () => asked().length === 2);
    const given = stored(sessionId).filter((event) => event.kind === 'human.given');
    expect(given).toMatchObject([
      { kind: 'human.given', payload: { requestId: first.payload.requestId, text: 'Blue, from the app' } },
    ]);
    // The person's reply is a message of the conversation, and the terminal stopped asking it.
    expect(
      stored(sessionId).some(
        (event) =>
          event.kind === 'message.completed' && event.payload.message.content === 'Blue, from the app',
      ),
    ).toBe(true);
    await until('the terminal to move on', () => run.stderr.includes('(Answered elsewhere.)'));

    // The owner dies while a question is open: the app says the run is gone, and it is interrupted.
    // It is frozen when the answer is sent and killed while the app waits: the app notices the
    // process is gone without waiting out its 60 s for a living owner.
    const second = asked()[1]!;
    run.child.kill('SIGSTOP');
    const pending = app
      .call('runs.answer', { sessionId, requestId: second.payload.requestId, text: 'Too late' })
      .catch((error: unknown) => error);
    await until('the answer to be waiting for the child', () => app.store.runRequests.open().length === 1);
    run.child.kill('SIGKILL');
    await run.exited;
    const gone = await pending;
    expect((gone as AppError).code).toBe('unavailable');
    expect((gone as AppError).message).toMatch(/has ended/);
    expect(app.store.getSession(sessionId)?.summary.status).toBe('interrupted');
    expect(app.store.runRequests.open()).toEqual([]);
    expect(stored(sessionId).filter((event) => event.kind === 'human.given')).toHaveLength(1);
  }, 120_000);
});
