import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';

const root = join(import.meta.dirname, '../../..');
const FLEET = 'resources/fleets/scripted/research-fanout.json';

async function cli(...args: string[]) {
  const io = captureIo();
  const code = await runCli(args, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('a store another process holds locked', () => {
  const temp = makeTempDir('fleetscope-locked-');
  const dataDir = join(temp.dir, 'data');
  let sessionId: string;
  let holder: ChildProcess;

  beforeAll(async () => {
    expect((await cli('run', FLEET, '--task', 'Before the lock', '--data-dir', dataDir)).code).toBe(0);
    const listed = await cli('sessions', '--json', '--data-dir', dataDir);
    sessionId = (JSON.parse(listed.out) as { items: Array<{ id: string }> }).items[0]!.id;
    holder = spawn(
      process.execPath,
      [join(root, 'test/helpers/lock-holder.mjs'), join(dataDir, 'fleetscope.db'), sessionId],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      holder.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
      holder.on('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
    });
  }, 60_000);
  afterAll(() => {
    holder?.kill('SIGKILL');
    temp.remove();
  });

  it('still lists and shows its sessions', async () => {
    const listed = await cli('sessions', '--data-dir', dataDir);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('Before the lock');
    expect((await cli('show', sessionId, '--data-dir', dataDir)).code).toBe(0);
  }, 60_000);

  it('a run says the store is locked, which process holds it and the command that frees it', async () => {
    const run = await cli('run', FLEET, '--task', 'While locked', '--data-dir', dataDir);
    expect(run.code).toBe(1);
    const summary = run.out;
    expect(summary).toContain(`The store ${join(dataDir, 'fleetscope.db')} is locked`);
    expect(summary).toMatch(new RegExp(`process ${holder.pid}: .*lock-holder\\.mjs`));
    expect(summary).toContain(`process ${holder.pid} runs session ${sessionId}`);
    expect(summary).toContain(`close it (kill ${holder.pid})`);
    expect(summary).not.toContain('database is locked');
  }, 60_000);

  it('an import says the same, and nothing is imported', async () => {
    const out = makeTempDir('fleetscope-locked-export-');
    const file = join(out.dir, 'session.json');
    expect((await cli('export', sessionId, '--format', 'json', '-o', file, '--data-dir', dataDir)).code).toBe(
      0,
    );
    const imported = await cli('import', file, '--data-dir', dataDir);
    out.remove();
    expect(imported.code).toBe(1);
    expect(imported.err).toContain('is locked');
    expect(imported.err).toContain(`kill ${holder.pid}`);
  }, 60_000);

  it('once the holder is gone, runs record again', async () => {
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const run = await cli('run', FLEET, '--task', 'After the lock', '--data-dir', dataDir);
    expect(run.code).toBe(0);
    const listed = await cli('sessions', '--data-dir', dataDir);
    expect(listed.out).toContain('Showing 2 of 2 sessions.');
  }, 60_000);
});
