import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from './database';
import { HistoryStore, type HistoryStoreOptions } from './history-store';
import type { RecoveryReport } from './recovery';

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
  recovery: RecoveryReport;
  /** Commits buffered writes and closes the database. */
  close(): void;
}

/** Opens (creating if needed) DATA_DIR/fleetscope.db and, by default, recovers orphaned live sessions. */
export function openHistory(dataDir: string, options: OpenHistoryOptions = {}): OpenedHistory {
  const { db, movedAsideTo } = openDatabase(join(dataDir, STORE_FILE), {
    nativeBinding: options.nativeBinding,
  });
  const store = new HistoryStore(db, options);
  const recovery =
    options.recover === false ? { sessions: [], partialMessages: 0 } : store.recoverInterrupted();
  return {
    store,
    db,
    movedAsideTo,
    recovery,
    close() {
      store.dispose();
      db.close();
    },
  };
}
