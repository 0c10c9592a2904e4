import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { MIGRATIONS, migrate } from '../../../src-main/history';
import { makeTempDir } from '../../helpers/temp-dir';
import { runCliProcess } from '../../helpers/cli-process';

/**
 * Retention counts from when a session entered this store, shows what it would delete before it
 * first deletes, keeps the seeded samples, never runs from a reading command, and runs
 * periodically in long-lived hosts. Real store files, real imports, the real CLI process.
 */

const root = join(import.meta.dirname, '../../..');
const resourcesDir = join(root, 'resources');
const DAY_MS = 86_400_000;

/** A transcript that began days before it is imported; not byte for byte a sample. */
function oldTranscript(dir: string): string {
  const file = join(dir, 'old-debate.json');
  writeFileSync(file, `${readFileSync(join(resourcesDir, 'samples/debate.json'), 'utf8')}\n `);
  return file;
}

/** Moves every session's arrival `days` back, as if the store had kept them that long. */
function age(dataDir: string, days: number): void {
  const db = new Database(join(dataDir, 'fleetscope.db'));
  db.prepare('UPDATE sessions SET stored_at = stored_at - ?').run(days * DAY_MS);
  db.close();
}

function sessionIds(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'fleetscope.db'), { readonly: true });
  const ids = (db.prepare('SELECT id FROM sessions ORDER BY id').all() as Array<{ id: string }>).map(
    (row) => row.id,
  );
  db.close();
  return ids;
}

describe('retention in the app', { timeout: 120_000 }, () => {
  const temps: Array<{ remove(): void }> = [];
  const apps: FleetscopeApp[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const temp of temps.splice(0)) temp.remove();
  });

  function open(dataDir: string, options: Partial<Parameters<typeof createApp>[0]> = {}): FleetscopeApp {
    const app = createApp({
      dataDir,
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
      resourcesDir,
      ...options,
    });
    apps.push(app);
    return app;
  }
  function folder(): { dir: string; dataDir: string } {
    const temp = makeTempDir();
    temps.push(temp);
    return { dir: temp.dir, dataDir: join(temp.dir, 'data') };
  }

  it('keeps an import of an old transcript: it counts from the import, not from the conversation', async () => {
    const { dir, dataDir } = folder();
    const app = open(dataDir);
    await app.ready;
    await app.call('settings.set', { retentionDays: 1 });
    const imported = await app.importFile(oldTranscript(dir));
    const session = await app.call('sessions.get', { id: imported.sessionId });
    // The conversation itself began more than a day ago.
    expect(Date.now() - session.summary.createdAt).toBeGreaterThan(DAY_MS);
    expect(app.retention.apply()).toEqual([]);
    expect(app.store.getSession(imported.sessionId)).not.toBeNull();

    age(dataDir, 2);
    const preview = await app.call('settings.retentionPreview', {});
    expect(preview).toMatchObject({ days: 1, count: 1, confirmed: true });
    expect(preview.sessions[0]).toMatchObject({ id: imported.sessionId, title: session.summary.title });
    expect(app.store.getSession(imported.sessionId)).not.toBeNull();
    expect(app.retention.apply()).toEqual([imported.sessionId]);
    expect(app.store.getSession(imported.sessionId)).toBeNull();
  });

  it('never deletes the seeded samples, however old', async () => {
    const { dataDir } = folder();
    const app = open(dataDir, { seedSamples: true });
    await app.ready;
    const seeded = sessionIds(dataDir);
    expect(seeded.length).toBeGreaterThanOrEqual(6);
    age(dataDir, 400);
    await app.call('settings.set', { retentionDays: 1 });
    expect((await app.call('settings.retentionPreview', {})).count).toBe(0);
    expect(app.retention.apply()).toEqual([]);
    expect(sessionIds(dataDir)).toEqual(seeded);
    // The user can still delete one.
    await app.call('sessions.delete', { id: seeded[0] as string });
    expect(sessionIds(dataDir)).toEqual(seeded.slice(1));
  });

  it('waits for a setting saved without a preview (an older version), and deletes nothing', async () => {
    const { dir, dataDir } = folder();
    const first = open(dataDir, { surface: 'cli' });
    await first.ready;
    const { sessionId } = await first.importFile(oldTranscript(dir));
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    age(dataDir, 30);
    const db = new Database(join(dataDir, 'fleetscope.db'));
    db.prepare("INSERT INTO settings (key, value) VALUES ('retentionDays', '1')").run();
    db.close();

    const host = open(dataDir, { surface: 'desktop' });
    await host.ready;
    expect(host.store.getSession(sessionId)).not.toBeNull();
    expect(await host.call('settings.retentionPreview', {})).toMatchObject({
      days: 1,
      count: 1,
      confirmed: false,
    });
    // Confirming it (the Settings page's Apply after the preview) deletes.
    await host.call('settings.set', { retentionDays: 1 });
    expect(host.store.getSession(sessionId)).toBeNull();
  });

  it('runs periodically in a long-lived host, and not in a CLI command', async () => {
    const { dir, dataDir } = folder();
    const cli = open(dataDir, { surface: 'cli', retentionIntervalMs: 20 });
    await cli.ready;
    await cli.call('settings.set', { retentionDays: 1 });
    const { sessionId } = await cli.importFile(oldTranscript(dir));
    age(dataDir, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(cli.store.getSession(sessionId)).not.toBeNull();
    await cli.close();
    apps.splice(apps.indexOf(cli), 1);

    const host = open(dataDir, { surface: 'browser', retentionIntervalMs: 20 });
    await host.ready;
    expect(host.store.getSession(sessionId)).toBeNull();
    // A session that ages while the host runs goes at a later tick.
    const later = await host.importFile(oldTranscript(dir));
    expect(host.store.getSession(later.sessionId)).not.toBeNull();
    age(dataDir, 2);
    await expect.poll(() => host.store.getSession(later.sessionId)).toBeNull();
  });
});

describe('the stored_at migration', () => {
  it('counts a run from its creation and an earlier import from the upgrade', () => {
    const temp = makeTempDir();
    try {
      const db = new Database(join(temp.dir, 'fleetscope.db'));
      migrate(db, MIGRATIONS.slice(0, 10));
      const insert = db.prepare(
        'INSERT INTO sessions (id, title, status, created_at, updated_at, source) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const longAgo = Date.now() - 400 * DAY_MS;
      insert.run('ses_run', 'A run', 'completed', longAgo, longAgo, 'live');
      insert.run('ses_import', 'An import', 'completed', longAgo, longAgo, 'fleetscope-json');
      const before = Date.now();
      migrate(db, MIGRATIONS);
      const rows = db
        .prepare('SELECT id, stored_at AS storedAt, sample FROM sessions ORDER BY id')
        .all() as Array<{
        id: string;
        storedAt: number;
        sample: number;
      }>;
      expect(rows[0]).toMatchObject({ id: 'ses_import', sample: 0 });
      expect(rows[0]?.storedAt).toBeGreaterThanOrEqual(before - 1);
      expect(rows[1]).toEqual({ id: 'ses_run', storedAt: longAgo, sample: 0 });
      // A row inserted afterwards gets its arrival time from the trigger.
      insert.run('ses_new', 'New', 'completed', longAgo, longAgo, 'autogen');
      const stored = db
        .prepare("SELECT stored_at FROM sessions WHERE id = 'ses_new'")
        .pluck()
        .get() as number;
      expect(stored).toBeGreaterThanOrEqual(before - 1);
      db.close();
    } finally {
      temp.remove();
    }
  });
});

describe('retention from the terminal (real processes)', () => {
  const cli = runCliProcess;

  it('import then show finds it; reading commands delete nothing; retention previews, then --apply deletes', async () => {
    const temp = makeTempDir();
    try {
      const dataDir = join(temp.dir, 'data');
      const file = oldTranscript(temp.dir);
      expect((await cli(['import', file, '--data-dir', dataDir])).code).toBe(0);
      const [id] = sessionIds(dataDir);
      // A retention of 1 day confirmed earlier (as the app would have saved it).
      const applied = await cli(['retention', '--days', '1', '--apply', '--data-dir', dataDir]);
      expect(applied.stdout).toContain('Keeping 1 day: deleted 0 sessions.');
      const shown = await cli(['show', id as string, '--data-dir', dataDir]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('Does remote work make teams more productive?');

      age(dataDir, 3);
      for (const reading of [
        ['sessions'],
        ['show', id as string],
        ['export', id as string, '--format', 'md', '-o', join(temp.dir, 'out.md')],
      ]) {
        const result = await cli([...reading, '--data-dir', dataDir]);
        expect(result.code, result.stderr).toBe(0);
        expect(sessionIds(dataDir)).toEqual([id]);
      }

      const preview = await cli(['retention', '--data-dir', dataDir]);
      expect(preview.code).toBe(0);
      expect(preview.stdout).toContain('Keeping 1 day: 1 session would be deleted now:');
      expect(preview.stdout).toContain(id);
      expect(preview.stdout).toContain('Nothing was deleted.');
      expect(sessionIds(dataDir)).toEqual([id]);

      const deleted = await cli(['retention', '--apply', '--data-dir', dataDir]);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toContain('Keeping 1 day: deleted 1 session.');
      expect(sessionIds(dataDir)).toEqual([]);
    } finally {
      temp.remove();
    }
  }, 120_000);
});
