import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openHistory } from '../../../src-main/history';
import { makeTempDir } from '../../helpers/temp-dir';

const WRITER = fileURLToPath(new URL('../../helpers/crash-writer.mjs', import.meta.url));

/** A second real process that drives one session in `dir`, streaming until it is killed. */
function startWriter(dir: string): Promise<{ child: ChildProcess; sessionId: string; acks(): number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = 0;
    let buffer = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'ready' && value) resolve({ child, sessionId: value, acks: () => acked });
        if (word === 'ack') acked += 1;
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
}

const waitFor = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

describe('session ownership across processes', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('a store opened beside a living writer never interrupts its session; once the writer is killed, the next open does', async () => {
    const temp = makeTempDir('fleetscope-owners-');
    cleanups.push(() => temp.remove());
    const writer = await startWriter(temp.dir);
    cleanups.push(() => writer.child.kill('SIGKILL'));
    await waitFor(() => writer.acks() >= 2, 'two acknowledged messages');

    // Another surface opens the same store with recovery on, as the app and every CLI command do.
    const beside = openHistory(temp.dir);
    expect(beside.recovery.sessions).toEqual([]);
    expect(beside.store.getSession(writer.sessionId)?.summary.status).toBe('running');
    // The writer keeps writing into the shared store while the other process has it open.
    const before = beside.store.countEvents(writer.sessionId);
    await waitFor(
      () => beside.store.countEvents(writer.sessionId) > before + 20,
      'more events from the writer',
    );
    beside.close();

    writer.child.removeAllListeners('exit');
    const exited = new Promise((resolve) => writer.child.once('exit', resolve));
    writer.child.kill('SIGKILL');
    await exited;

    const after = openHistory(temp.dir);
    expect(after.recovery.sessions).toEqual([writer.sessionId]);
    expect(after.store.getSession(writer.sessionId)?.summary.status).toBe('interrupted');
    after.close();
  });
});
