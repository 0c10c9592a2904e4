import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetInput } from '@shared/domain';
import { AppError, createApp, type FleetscopeApp } from '../../../src-main/app';
import { makeTempDir } from '../../helpers/temp-dir';
import { runCliProcess } from '../../helpers/cli-process';

/**
 * Continuing never changes what it should not: Settings' message cap holds across continuations,
 * a read-only (imported) session goes on in a fork and stays byte for byte as it was, and a
 * session with nothing left to say is refused with nothing written. Real store files, the real
 * runtime, the real CLI process.
 */

/** Two scripted agents that always have something to say. */
const chatty: FleetInput = {
  version: 1,
  name: 'Chatty',
  agents: [
    { name: 'ping', type: 'scripted', script: [{ content: 'ping' }], loop: true },
    { name: 'pong', type: 'scripted', script: [{ content: 'pong' }], loop: true },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 50 },
};

/** Every stored row of a session (its row, events and messages), as text to compare. */
function rowsOf(dataDir: string, sessionId: string): string {
  const db = new Database(join(dataDir, 'fleetscope.db'), { readonly: true });
  try {
    return JSON.stringify([
      db.prepare('SELECT * FROM sessions WHERE id = ?').all(sessionId),
      db.prepare('SELECT * FROM events WHERE session_id = ? ORDER BY seq').all(sessionId),
      db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY seq').all(sessionId),
    ]);
  } finally {
    db.close();
  }
}

function sessionCount(dataDir: string): number {
  const db = new Database(join(dataDir, 'fleetscope.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
  } finally {
    db.close();
  }
}

const cli = runCliProcess;

describe('continuing a stored session', { timeout: 120_000 }, () => {
  const temps: Array<{ remove(): void }> = [];
  const apps: FleetscopeApp[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const temp of temps.splice(0)) temp.remove();
  });

  /** A fresh temp folder (removed after the test) and the data folder in it. */
  function folder(): { dataDir: string; dir: string } {
    const temp = makeTempDir();
    temps.push(temp);
    return { dataDir: join(temp.dir, 'data'), dir: temp.dir };
  }
  function open(): { app: FleetscopeApp; dataDir: string; dir: string } {
    const { dataDir, dir } = folder();
    const app = createApp({ dataDir, surface: 'desktop', pingIntervalMs: 0, seedSamples: false });
    apps.push(app);
    return { app, dataDir, dir };
  }
  /** A data folder whose Settings stop a session at 3 messages, and the chatty fleet's file. */
  async function cappedAtThree(): Promise<{ dataDir: string; fleetFile: string }> {
    const { dataDir, dir } = folder();
    const setup = createApp({ dataDir, surface: 'cli', pingIntervalMs: 0, seedSamples: false });
    await setup.call('settings.set', { maxMessagesPerSession: 3 });
    await setup.close();
    const fleetFile = join(dir, 'chatty.json');
    writeFileSync(fleetFile, JSON.stringify(chatty));
    return { dataDir, fleetFile };
  }
  /** The session id a `run --json` printed first. */
  const sessionOf = (stdout: string): string =>
    (JSON.parse(stdout.split('\n')[0] as string) as { sessionId: string }).sessionId;
  async function finished(app: FleetscopeApp, id: string) {
    await expect
      .poll(async () => (await app.call('sessions.get', { id })).summary.status)
      .not.toMatch(/running|paused|waiting/);
    return app.call('sessions.get', { id });
  }
  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    const error = await promise.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it("holds Settings' message cap across continuations, and says so when it is reached", async () => {
    const { app, dataDir } = open();
    await app.call('settings.set', { maxMessagesPerSession: 3 });
    const { sessionId } = await app.call('runs.start', { source: { fleet: chatty }, task: 'Go' });
    expect((await finished(app, sessionId)).summary.messageCount).toBe(3);

    const before = rowsOf(dataDir, sessionId);
    const refused = await refusal(app.call('runs.continue', { sessionId, task: 'More' }));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toBe(
      'This session has 3 messages, and Settings stops a session at 3; nothing was changed. Raise the limit in Settings to go on, or fork it.',
    );
    expect(rowsOf(dataDir, sessionId)).toBe(before);
    // Resume without a task is refused the same way.
    await refusal(app.call('runs.continue', { sessionId }));
    expect(rowsOf(dataDir, sessionId)).toBe(before);

    // A raised cap lets it go on, up to the new cap for the whole session (not 5 more).
    await app.call('settings.set', { maxMessagesPerSession: 5 });
    await app.call('runs.continue', { sessionId, task: 'More' });
    const after = await finished(app, sessionId);
    expect(after.summary.messageCount).toBe(5);
  });

  it('continues a read-only import in a fork; the import stays byte for byte as it was', async () => {
    const { app, dataDir } = open();
    const conversation = JSON.stringify([
      { role: 'user', content: 'Name a colour.' },
      { role: 'assistant', content: 'Blue.' },
    ]);
    const imported = await app.call('sessions.importData', {
      fileName: 'colours.json',
      content: conversation,
    });
    const before = rowsOf(dataDir, imported.sessionId);

    // Without providers for its agents: refused, nothing written, no fork left behind.
    const refused = await refusal(app.call('runs.continue', { sessionId: imported.sessionId }));
    expect(refused.code).toBe('read-only');
    expect(refused.message).toMatch(/give assistant a provider/);
    expect(sessionCount(dataDir)).toBe(1);
    expect(rowsOf(dataDir, imported.sessionId)).toBe(before);

    // With a scripted stand-in: the fork goes on, the import does not change.
    const { sessionId: forkId } = await app.call('runs.continue', {
      sessionId: imported.sessionId,
      task: 'Another?',
      agents: [{ agent: 'assistant', provider: 'scripted' }],
    });
    expect(forkId).not.toBe(imported.sessionId);
    const fork = await finished(app, forkId);
    expect(fork.summary).toMatchObject({ readOnly: false, parentSessionId: imported.sessionId });
    expect(rowsOf(dataDir, imported.sessionId)).toBe(before);
    const imports = await app.call('sessions.get', { id: imported.sessionId });
    expect(imports.summary).toMatchObject({ readOnly: true, status: 'completed' });
  });

  it('fleetscope continue on a finished scripted session says there is nothing to continue and changes nothing', async () => {
    const { dataDir } = folder();
    const ran = await cli([
      'run',
      'resources/fleets/scripted/debate.json',
      '--task',
      'Remote work?',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(ran.code).toBe(0);
    const sessionId = sessionOf(ran.stdout);
    const before = rowsOf(dataDir, sessionId);

    for (const extra of [[], ['--task', 'One more round?']]) {
      const result = await cli(['continue', sessionId, ...extra, '--data-dir', dataDir]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        'Every agent of this session is scripted and has said all its lines: there is nothing to continue. Nothing was changed.',
      );
      expect(rowsOf(dataDir, sessionId)).toBe(before);
    }
  });

  it('fleetscope continue on an imported session goes on in a fork and leaves the import as it was', async () => {
    const { dataDir, dir } = folder();
    const file = join(dir, 'colours.json');
    writeFileSync(
      file,
      JSON.stringify([
        { role: 'user', content: 'Name a colour.' },
        { role: 'assistant', content: 'Blue.' },
      ]),
    );
    expect((await cli(['import', file, '--data-dir', dataDir])).code).toBe(0);
    const db = new Database(join(dataDir, 'fleetscope.db'), { readonly: true });
    const importedId = db.prepare('SELECT id FROM sessions').pluck().get() as string;
    db.close();
    const before = rowsOf(dataDir, importedId);

    const refused = await cli(['continue', importedId, '--data-dir', dataDir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/give assistant a provider/);
    expect(sessionCount(dataDir)).toBe(1);
    expect(rowsOf(dataDir, importedId)).toBe(before);

    const result = await cli([
      'continue',
      importedId,
      '--task',
      'Another?',
      '--set',
      'assistant.provider=scripted',
      '--data-dir',
      dataDir,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `${importedId} is read-only (imported) and stays as it is; continuing in a new fork: `,
    );
    expect(sessionCount(dataDir)).toBe(2);
    expect(rowsOf(dataDir, importedId)).toBe(before);
  });

  it('fleetscope run stops at the cap Settings set unless --max-messages says otherwise', async () => {
    const { dataDir, fleetFile } = await cappedAtThree();
    const countOf = (stdout: string) =>
      /"message_count":(\d+),/.exec(rowsOf(dataDir, sessionOf(stdout)))?.[1];
    const capped = await cli(['run', fleetFile, '--task', 'Go', '--json', '--data-dir', dataDir]);
    expect(capped.code, capped.stderr).toBe(0);
    expect(countOf(capped.stdout)).toBe('3');
    const flagged = await cli([
      'run',
      fleetFile,
      '--task',
      'Go',
      '--json',
      '--max-messages',
      '5',
      '--data-dir',
      dataDir,
    ]);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(countOf(flagged.stdout)).toBe('5');
  });

  it('fleetscope continue refuses a session at the cap Settings set, changing nothing', async () => {
    const { dataDir, fleetFile } = await cappedAtThree();
    const ran = await cli([
      'run',
      fleetFile,
      '--task',
      'Go',
      '--json',
      '--max-messages',
      '3',
      '--data-dir',
      dataDir,
    ]);
    expect(ran.code).toBe(0);
    const sessionId = sessionOf(ran.stdout);
    const before = rowsOf(dataDir, sessionId);
    expect(before.includes('"message_count":3,')).toBe(true);

    const result = await cli(['continue', sessionId, '--task', 'More', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Settings stops a session at 3; nothing was changed.');
    expect(rowsOf(dataDir, sessionId)).toBe(before);
  });
});
