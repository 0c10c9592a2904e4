import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { makeTempDir } from '../../helpers/temp-dir';

const CHILD = fileURLToPath(new URL('../../helpers/resume-crash-child.mjs', import.meta.url));

/**
 * A run killed mid-message by another process's death is marked interrupted by the next app that
 * opens the store, and that app continues it: the turn that was cut off is taken again, the
 * termination condition counts on from what it had seen, and the events go on in order.
 */
describe('resuming an interrupted session', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp | null = null;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(async () => {
    await app?.close();
    temp.remove();
  });

  it('goes on from a killed process: the cut turn is retaken and the cap counts the earlier messages', async () => {
    const dataDir = join(temp.dir, 'data');
    const child = spawn(process.execPath, [CHILD, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Four messages completed (the task and three lines), the fifth streaming: kill it.
    await expect.poll(() => out.includes('message 4 '), { timeout: 20_000, interval: 20 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    child.kill('SIGKILL');
    await exited;
    expect(err).toBe('');
    const sessionId = /message 4 (\S+)/.exec(out)?.[1] as string;

    app = createApp({ dataDir, surface: 'cli', seedSamples: false, pingIntervalMs: 0, watchStore: false });
    const before = await app.call('sessions.get', { id: sessionId });
    expect(before.summary.status).toBe('interrupted');
    const cut = (await app.call('sessions.messages', { id: sessionId })).items;
    expect(cut.at(-1)?.state).toBe('partial');
    const cutFrom = cut.at(-1)?.from;
    expect(await app.call('runs.resumeCheck', { sessionId })).toMatchObject({ resumable: true });

    const handle = app.runs.resume({ sessionId });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(summary.stopReason).toBe('max-messages');
    const messages = (await app.call('sessions.messages', { id: sessionId, limit: 100 })).items;
    const complete = messages.filter((message) => message.state === 'complete');
    // The cap of 9 counts the 4 messages from before the crash.
    expect(complete).toHaveLength(9);
    // The interrupted speaker says its cut line again, whole, before the other one goes on.
    const retaken = messages[cut.length];
    expect(retaken).toMatchObject({ from: cutFrom, state: 'complete' });
    expect(retaken?.content.startsWith(cut.at(-1)?.content ?? '-')).toBe(true);
    expect(messages[cut.length + 1]?.from).not.toBe(cutFrom);
    const events: RunEvent[] = (await app.call('sessions.events', { id: sessionId, afterSeq: 0 })).events;
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(
      events.filter((event) => event.kind === 'session.stopped').map((event) => event.payload.status),
    ).toEqual(['interrupted', 'completed']);
    const t = events.map((event) => event.t);
    expect([...t].sort((a, b) => a - b)).toEqual(t);
  });
});
