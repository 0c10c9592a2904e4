import { readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqliteDatabase } from './database';
import { StoreFault } from './errors';

export { StoreFault } from './errors';
import { currentProcess, ownerIsAlive, type OwnerRow } from './ownership';

/**
 * Free space below which a store is not worth writing to: SQLite grows its write-ahead log by up
 * to about 4 MB (1000 pages) before it copies it into the database, which then grows too.
 */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** SQLite's extended result code of a better-sqlite3 error ("SQLITE_FULL"), or null. */
export function sqliteCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** The disk (or the store's size limit) refused to grow the store. */
export function isFull(error: unknown): boolean {
  return sqliteCode(error) === 'SQLITE_FULL';
}

/** Another connection holds the write lock past the busy timeout. */
export function isLocked(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * A failure no retry will cure while the process runs: the disk is full, the file or folder is
 * read-only, or the disk fails. A busy store is not one (the lock is let go).
 */
export function cannotWrite(error: unknown): boolean {
  const code = sqliteCode(error);
  return (
    code !== null &&
    (code === 'SQLITE_FULL' || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR'))
  );
}

/** "3.1 MB", "512 kB", "0 B". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${bytes} B`;
}

/** Bytes free to an unprivileged writer in the folder holding `file`, or null when unknown. */
export function freeBytes(file: string): number | null {
  try {
    const stats = statfsSync(dirname(file));
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/**
 * The store at `file` could not write `needBytes` (what was being committed, estimated): says
 * how much is free, how much it needs, and whether the disk or the store's own size limit
 * (PRAGMA max_page_count) is what stopped it.
 */
export function storeFullFault(file: string, db: SqliteDatabase | null, needBytes = 0): StoreFault {
  const needed = Math.max(MIN_FREE_BYTES, needBytes * 4);
  const free = freeBytes(file);
  const limit = db?.open ? pageLimitBytes(db) : null;
  const reason =
    free !== null && free >= needed && limit !== null
      ? `the store reached its size limit of ${formatBytes(limit)} (max_page_count)`
      : `the disk holding ${dirname(file)} is full (${free === null ? 'free space unknown' : `${formatBytes(free)} free`})`;
  return new StoreFault(
    'full',
    file,
    `The store ${file} cannot write: ${reason}. It needs at least ${formatBytes(needed)} free to go on. ` +
      'What was recorded before stays; free some space (or use another --data-dir) and try again.',
  );
}

function pageLimitBytes(db: SqliteDatabase): number | null {
  try {
    const pages = db.pragma('max_page_count', { simple: true }) as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    // SQLite's default limit (4294967294 pages) is no limit worth naming.
    return pages < 4_000_000_000 ? pages * size : null;
  } catch {
    return null;
  }
}

/** A process holding a lock on the store's files (from /proc/locks on Linux). */
export interface LockHolder {
  pid: number;
  command: string;
}

/** Other processes holding a write lock on `file` or its -shm/-wal files; empty off Linux. */
export function lockHolders(file: string): LockHolder[] {
  const inodes = new Set<string>();
  for (const path of [file, `${file}-shm`, `${file}-wal`]) {
    try {
      inodes.add(String(statSync(path).ino));
    } catch {
      // Not there: nothing can lock it.
    }
  }
  let table: string;
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const pids = new Set<number>();
  for (const line of table.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 1234 00:2d:5678 120 120"; a waiter's line has "->" after the number.
    const fields = line.replace('->', '').trim().split(/\s+/);
    const [, , , mode, pid, device] = fields;
    const inode = device?.split(':')[2];
    if (mode !== 'WRITE' || inode === undefined || !inodes.has(inode)) continue;
    const id = Number(pid);
    if (Number.isInteger(id) && id !== process.pid) pids.add(id);
  }
  return [...pids].map((pid) => ({ pid, command: commandOf(pid) }));
}

function commandOf(pid: number): string {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const line = words.join(' ');
    return line.length > 120 ? `${line.slice(0, 119)}…` : line;
  } catch {
    return 'unknown command';
  }
}

/** Live sessions and the processes that drive them, as the store records them (best effort). */
function liveOwners(db: SqliteDatabase | null, now: number): Array<OwnerRow & { session_id: string }> {
  if (!db?.open) return [];
  try {
    const rows = db
      .prepare('SELECT session_id, pid, process_start, host, heartbeat_at FROM session_owners')
      .all() as Array<OwnerRow & { session_id: string }>;
    return rows.filter((row) => ownerIsAlive(row, now));
  } catch {
    return [];
  }
}

/**
 * The store stayed locked past the busy timeout: names what holds it (processes with a write
 * lock on its files, live runs the store records) and what to do.
 */
export function storeLockedFault(file: string, db: SqliteDatabase | null, now = Date.now()): StoreFault {
  const me = currentProcess();
  const holders = lockHolders(file);
  const owners = liveOwners(db, now).filter((row) => !(row.pid === me.pid && row.host === me.host));
  const lines: string[] = [];
  for (const holder of holders) lines.push(`  process ${holder.pid}: ${holder.command}`);
  for (const owner of owners) {
    const where = owner.host === me.host ? '' : ` on host ${owner.host}`;
    lines.push(`  process ${owner.pid}${where} runs session ${owner.session_id}`);
  }
  const pids = [
    ...new Set([...holders.map((h) => h.pid), ...owners.filter((o) => o.host === me.host).map((o) => o.pid)]),
  ];
  const what =
    lines.length > 0
      ? `It is held by:\n${lines.join('\n')}\n`
      : 'The process holding it could not be named (it may run on another machine sharing this folder).\n';
  const todo =
    pids.length > 0
      ? `Wait for it to finish, or close it (kill ${pids.join(' ')}), then try again.`
      : 'Wait for it to finish, or close the other Fleetscope window, command or script using this folder, then try again.';
  return new StoreFault(
    'locked',
    file,
    `The store ${file} is locked: another process is writing to it and did not let go. ${what}${todo}`,
  );
}

/** The folder (or the store file) cannot be written: `action` needs to write. */
export function readOnlyFault(file: string, action = 'This'): StoreFault {
  return new StoreFault(
    'read-only',
    file,
    `${action} needs to write, but the store ${file} is read-only (a read-only folder, share or backup). ` +
      'Browsing, searching, replaying, comparing and exporting to another folder work; to change it, copy the folder somewhere writable and use --data-dir.',
  );
}

/** The fault a SQLite error stands for at `file`, or null for any other error. */
export function storeFaultOf(error: unknown, file: string, db: SqliteDatabase | null): StoreFault | null {
  if (error instanceof StoreFault) return error;
  if (isFull(error)) return storeFullFault(file, db);
  if (isLocked(error)) return storeLockedFault(file, db);
  if (sqliteCode(error)?.startsWith('SQLITE_READONLY')) return readOnlyFault(file);
  return null;
}
