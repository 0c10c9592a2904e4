import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { MIGRATIONS, migrate, openDatabase } from '../../../src-main/history';
import { makeTempDir } from '../../helpers/temp-dir';

const tablesOf = (db: Database.Database): string[] =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') ORDER BY name")
      .all() as Array<{ name: string }>
  ).map((row) => row.name);

describe('history schema migrations', () => {
  const temps: Array<{ remove(): void }> = [];
  afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

  it('builds the whole schema on an empty in-memory database', () => {
    const { db } = openDatabase(':memory:');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const names = tablesOf(db);
    for (const table of ['sessions', 'fleets', 'event_log', 'message_rows', 'checkpoints', 'messages_fts']) {
      expect(names).toContain(table);
    }
    const views = db.prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name").all();
    expect(views).toEqual([{ name: 'events' }, { name: 'messages' }]);
    db.close();
  });

  it.each(MIGRATIONS.slice(0, -1).map((migration) => migration.version))(
    'upgrades a store file left at version %i and keeps its settings',
    (version) => {
      const temp = makeTempDir();
      temps.push(temp);
      const file = join(temp.dir, 'fleetscope.db');
      const old = new Database(file);
      migrate(old, MIGRATIONS.slice(0, version));
      old.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('theme', '"dark"');
      old.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('retentionDays', '30');
      expect(old.pragma('user_version', { simple: true })).toBe(version);
      old.close();

      const { db, movedAsideTo } = openDatabase(file);
      expect(movedAsideTo).toBeNull();
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.prepare('SELECT key, value FROM settings ORDER BY key').all()).toEqual([
        { key: 'retentionDays', value: '30' },
        { key: 'theme', value: '"dark"' },
      ]);
      expect(tablesOf(db)).toContain('messages_fts');
      db.close();
    },
  );

  it('runs every migration in a transaction: a failing step leaves the older version intact', () => {
    const db = new Database(':memory:');
    const broken = [
      ...MIGRATIONS,
      {
        version: MIGRATIONS.length + 1,
        name: 'broken',
        up: (d: Database.Database) => {
          d.exec('CREATE TABLE half_done (x INTEGER)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => migrate(db, broken)).toThrow('boom');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(tablesOf(db)).not.toContain('half_done');
    db.close();
  });
});
