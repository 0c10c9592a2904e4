import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';

/**
 * Keeps `messages_fts` in step with `message_rows`: a row is indexed once it stops streaming
 * (complete or partial) and removed before its message row goes. Rowids are `messages.pk`.
 */
export class FtsIndex {
  private readonly insert;
  private readonly remove;
  private readonly insertStreamingOf;
  private readonly removeSession;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    this.remove = db.prepare('DELETE FROM messages_fts WHERE rowid = ?');
    this.insertStreamingOf = db.prepare(
      `INSERT INTO messages_fts (rowid, content) SELECT pk, content FROM message_rows WHERE sid = ${SID_OF} AND state = 'streaming'`,
    );
    this.removeSession = db.prepare(
      `DELETE FROM messages_fts WHERE rowid IN (SELECT pk FROM message_rows WHERE sid = ${SID_OF} AND state <> 'streaming')`,
    );
  }

  /** Indexes a row; `wasIndexed` when it had been indexed before (a re-completed message). */
  add(pk: number, content: string, wasIndexed: boolean): void {
    if (wasIndexed) this.remove.run(pk);
    this.insert.run(pk, content);
  }

  /** Call right before the session's streaming rows are marked partial. */
  addStreamingOf(sessionId: string): void {
    this.insertStreamingOf.run(sessionId);
  }

  /** Call right before the session's message rows are deleted. */
  removeSessionRows(sessionId: string): void {
    this.removeSession.run(sessionId);
  }
}
