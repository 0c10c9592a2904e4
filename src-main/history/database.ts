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

/**
 * A connection to `file` with the store's pragmas (WAL, busy timeout, foreign keys), without the
 * integrity check or migrations: every connection to one store uses these (an import's writer
 * thread opens its own).
 */
export function openRaw(file: string, options: OpenOptions): SqliteDatabase {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** SQLite's own verdict that the file is damaged or not a database at all. */
function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'));
}

function isHealthy(db: SqliteDatabase): boolean {
  const rows = db.pragma('quick_check', { simple: false }) as Array<Record<string, unknown>>;
  return rows.length === 1 && Object.values(rows[0] ?? {})[0] === 'ok';
}

/**
 * Opens (creating if needed) the store at `file`, checks integrity, and migrates it to the latest
 * version. Only a file SQLite itself finds corrupt (or not a database) is moved aside and a fresh
 * store opened in its place; any other failure (a native binding that does not load, a locked or
 * unreadable file) is thrown and the file left untouched.
 */
export function openDatabase(file: string, options: OpenOptions = {}): OpenedDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let db: SqliteDatabase | null = null;
  let corrupt = false;
  try {
    db = openRaw(file, options);
    corrupt = !isHealthy(db);
  } catch (error) {
    db?.close();
    if (!isCorruption(error) || file === ':memory:' || !existsSync(file)) throw error;
    corrupt = true;
  }
  let movedAsideTo: string | null = null;
  if (corrupt || !db) {
    if (db?.open) db.close();
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
