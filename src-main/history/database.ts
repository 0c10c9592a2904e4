import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate, type Migration } from './migrations/runner';
import { MIGRATIONS } from './migrations';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** Path to a better-sqlite3 native binding built for this runtime (Electron has its own). */
  nativeBinding?: string;
  migrations?: readonly Migration[];
}

export interface OpenedDatabase {
  db: SqliteDatabase;
  /** Set when the old file failed its integrity check and was moved here. */
  movedAsideTo: string | null;
}

function openRaw(file: string, options: OpenOptions): SqliteDatabase {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

function isHealthy(db: SqliteDatabase): boolean {
  const rows = db.pragma('quick_check', { simple: false }) as Array<Record<string, unknown>>;
  return rows.length === 1 && Object.values(rows[0] ?? {})[0] === 'ok';
}

/**
 * Opens (creating if needed) the store at `file`, checks integrity, and migrates it to the latest
 * version. A corrupt file is moved aside and a fresh store opened in its place.
 */
export function openDatabase(file: string, options: OpenOptions = {}): OpenedDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let movedAsideTo: string | null = null;
  let db: SqliteDatabase;
  try {
    db = openRaw(file, options);
    if (!isHealthy(db)) throw new Error('integrity check failed');
  } catch (error) {
    if (file === ':memory:' || !existsSync(file)) throw error;
    movedAsideTo = moveAside(file);
    db = openRaw(file, options);
  }
  migrate(db, options.migrations ?? MIGRATIONS);
  return { db, movedAsideTo };
}

function moveAside(file: string): string {
  const target = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, target);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(file + suffix)) renameSync(file + suffix, target + suffix);
  }
  return target;
}
