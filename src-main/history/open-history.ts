import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from './database';
import { HistoryStore, type HistoryStoreOptions } from './history-store';
import type { RecoveryReport } from './recovery';
import { isLocked, storeFaultOf } from './store-faults';
import { MIGRATIONS } from './migrations';
import { salvageSessions, type SalvageReport } from './salvage';

/** The store file inside the data folder (the same one the app opens). */
export const STORE_FILE = 'fleetscope.db';

export interface OpenHistoryOptions extends HistoryStoreOptions {
  /**
   * Mark as interrupted the live sessions whose driving process is gone (default true). Safe in
   * every process: sessions a living process drives are never touched (see ownership.ts).
   */
  recover?: boolean;
  nativeBinding?: string;
}

export interface OpenedHistory {
  store: HistoryStore;
  db: SqliteDatabase;
  /** Set when the old store failed its integrity check and was moved here; tell the user. */
  movedAsideTo: string | null;
  /** What could be read back from the damaged store that was moved aside (null when none was). */
  salvaged: SalvageReport | null;
  /**
   * The folder or the store file cannot be written: the store was opened for reading only
   * (nothing is written, not even recovery; writes fail with a read-only StoreFault).
   */
  readOnly: boolean;
  recovery: RecoveryReport;
  /** Commits buffered writes and closes the database. */
  close(): void;
}

/** Whether `path` exists and cannot be written (a read-only mount, or modes that forbid it). */
function notWritable(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** Whether the store in `dataDir` can only be read: its folder or its file is not writable. */
export function storeIsReadOnly(dataDir: string): boolean {
  return notWritable(dataDir) || notWritable(join(dataDir, STORE_FILE));
}

/**
 * Opens (creating if needed) DATA_DIR/fleetscope.db and, by default, recovers orphaned live
 * sessions. A folder or file that cannot be written is opened read-only. SQLite's refusals that
 * are the machine's (a full disk, a lock another process holds) are thrown as StoreFaults that
 * say what holds it or how much space is free. A store locked by another process's write opens
 * anyway when it is up to date (reading works; recovery waits for a later start).
 */
export function openHistory(dataDir: string, options: OpenHistoryOptions = {}): OpenedHistory {
  const file = join(dataDir, STORE_FILE);
  const readOnly = storeIsReadOnly(dataDir);
  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase(file, { nativeBinding: options.nativeBinding, readOnly });
  } catch (error) {
    throw storeFaultOf(error, file, null) ?? error;
  }
  const { db, movedAsideTo } = opened;
  // The damaged file's readable sessions come back before anything else writes.
  const salvaged =
    movedAsideTo === null
      ? null
      : salvageSessions(
          db,
          movedAsideTo,
          MIGRATIONS.length,
          options.checkpointInterval,
          options.nativeBinding,
        );
  const store = new HistoryStore(db, readOnly ? { ...options, heartbeatMs: 0 } : options);
  let recovery: RecoveryReport = { sessions: [], partialMessages: 0 };
  if (options.recover !== false && !readOnly) {
    try {
      recovery = store.recoverInterrupted();
    } catch (error) {
      if (!isLocked(error)) {
        const fault = storeFaultOf(error, file, db) ?? error;
        store.dispose();
        db.close();
        throw fault;
      }
    }
  }
  return {
    store,
    db,
    movedAsideTo,
    salvaged,
    readOnly,
    recovery,
    close() {
      store.dispose();
      db.close();
    },
  };
}
