import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate, type Migration } from './migrations/runner';
import { MIGRATIONS } from './migrations';
import { StoreFault } from './errors';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** Path to a better-sqlite3 native binding built for this runtime (Electron has its own). */
  nativeBinding?: string;
  migrations?: readonly Migration[];
  /**
   * Open for reading only (a read-only folder or file): nothing is written, no integrity repair,
   * no migration (a store that needs one is refused with a StoreFault saying so).
   */
  readOnly?: boolean;
}

export interface OpenedDatabase {
  db: SqliteDatabase;
  /** Set when the old file failed its integrity check and was moved here. */
  movedAsideTo: string | null;
}

/** How long a connection waits for another's lock before SQLITE_BUSY (ms). */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * The page cache of the store's main connection (the app's, or a read-only folder's), in KiB
 * (a negative `cache_size`): at most 32 MiB, taken only as pages are read. SQLite's default of
 * 2 MiB holds about 500 pages, so a read that visits rows spread over a long session (the context
 * inspector reads an agent's 6,667 tool turns of a 100,000-message session, some 20 MiB of pages)
 * asks the operating system for nearly every row's page again: 38 ms for those rows where the
 * cached read takes 25 ms (24 MiB held them all). An import's writing thread keeps the
 * default: it appends.
 */
const PAGE_CACHE_KIB = 32_768;

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
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
  if (options.readOnly) return { db: openReadOnly(file, options), movedAsideTo: null };
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
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
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

/**
 * A connection that reads the database file `file` and never writes it or its folder. SQLite
 * reads a WAL database read-only only when its -shm and -wal files exist (it cannot create them
 * there; URI `immutable=1` is not compiled in): then it reads the file in place, WAL included.
 * Otherwise (a store closed cleanly, whose log was folded back) the file is read into memory and
 * opened from there, marked as a rollback-journal database in that copy only.
 */
export function openFileReadOnly(file: string, options: OpenOptions = {}): SqliteDatabase {
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  if (existsSync(`${file}-wal`) && existsSync(`${file}-shm`)) {
    return new Database(file, { ...binding, readonly: true, fileMustExist: true });
  }
  let bytes = readFileSync(file);
  // Bytes 18 and 19 of the header: file format versions, 2 for WAL, 1 for rollback journal.
  if (bytes.length >= 20 && bytes[18] === 2) bytes[18] = bytes[19] = 1;
  // A file cut short: its missing pages read as empty (each fails on its own) rather than the
  // schema failing as a whole for naming pages past the end. Header: page size at 16 (1 = 65536),
  // page count at 28.
  if (bytes.length >= 100) {
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65_536 : bytes.readUInt16BE(16);
    const wanted = bytes.readUInt32BE(28) * pageSize;
    if (wanted > bytes.length && wanted <= 4 * bytes.length + 1024 * 1024 * 1024) {
      bytes = Buffer.concat([bytes, Buffer.alloc(wanted - bytes.length)]);
    }
  }
  return new Database(bytes, { ...binding, readonly: true });
}

/**
 * The store at `file` for reading only, where neither it nor its folder can be written (see
 * openFileReadOnly). With no store, an empty one in memory. A store at an older schema is
 * refused: its migration cannot be written.
 */
function openReadOnly(file: string, options: OpenOptions): SqliteDatabase {
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  const migrations = options.migrations ?? MIGRATIONS;
  if (!existsSync(file)) {
    const empty = new Database(':memory:', binding);
    migrate(empty, migrations);
    return empty;
  }
  const db = openFileReadOnly(file, options);
  try {
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version < migrations.length) {
      throw new StoreFault(
        'read-only',
        file,
        `The store ${file} was written by an older Fleetscope (schema ${version}; this version reads ${migrations.length}) ` +
          'and must be upgraded before this version can read it, which cannot be done in a read-only folder. ' +
          'Copy the folder somewhere writable and open it there (--data-dir), or use the older version.',
      );
    }
    if (version > migrations.length) {
      throw new Error(
        `This data folder was written by a newer Fleetscope (schema ${version}, this build knows ${migrations.length}).`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
