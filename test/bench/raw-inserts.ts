import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openHistory, STORE_FILE } from '../../src-main/history';

/** Every row one session has in one table, as stored (column order of `columns`). */
export interface TableRows {
  table: string;
  columns: string[];
  rows: unknown[][];
}

/** The tables a session's rows live in, and how each names the session (by id, or by its `sid`). */
const SESSION_TABLES: ReadonlyArray<{ table: string; key: string }> = [
  { table: 'sessions', key: 'id = ?' },
  { table: 'event_log', key: 'sid = (SELECT sid FROM sessions WHERE id = ?)' },
  { table: 'message_rows', key: 'sid = (SELECT sid FROM sessions WHERE id = ?)' },
  { table: 'checkpoints', key: 'session_id = ?' },
];

/** Reads every stored row of one session (its full-text rows are its messages' pk and content). */
export function readSessionRows(db: Database.Database, sessionId: string): TableRows[] {
  return SESSION_TABLES.map(({ table, key }) => {
    const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map(
      (column) => column.name,
    );
    const rows = db
      .prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${key}`)
      .raw()
      .all(sessionId) as unknown[][];
    return { table, columns, rows };
  });
}

/** A fresh store in `folder` with the app's schema (every migration), closed again. */
export function createEmptyStore(folder: string): string {
  openHistory(folder, { recover: false }).close();
  return join(folder, STORE_FILE);
}

/**
 * The baseline of an import: `tables` inserted as they are, with prepared statements in one
 * transaction, into a fresh store with the same schema (tables, indexes, the FTS5 index: rowid
 * `messages.pk`, the message's content), on a connection with the store's pragmas. No parsing,
 * folding, JSON or batching. Returns the milliseconds the inserts took (opening excluded).
 */
export function rawInsert(folder: string, tables: readonly TableRows[]): number {
  const db = new Database(createEmptyStore(folder));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const inserts = tables.map(({ table, columns, rows }) => ({
      rows,
      statement: db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ),
    }));
    const messages = tables.find((entry) => entry.table === 'message_rows');
    const pk = messages?.columns.indexOf('pk') ?? -1;
    const content = messages?.columns.indexOf('content') ?? -1;
    const fts = db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    const started = performance.now();
    db.transaction(() => {
      for (const { rows, statement } of inserts) for (const row of rows) statement.run(row);
      for (const row of messages?.rows ?? []) fts.run(row[pk], row[content]);
    })();
    return performance.now() - started;
  } finally {
    db.close();
  }
}
