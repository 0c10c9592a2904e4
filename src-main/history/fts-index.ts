import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';
import { indexableText } from './fts-query';

/**
 * Keeps `messages_fts` in step with `message_rows`: a row is indexed once it stops streaming
 * (complete or partial) and removed before its message row goes. Rowids are `messages.pk`. Text is
 * indexed as `indexableText` makes it (CJK characters as tokens of their own).
 */
export class FtsIndex {
  private readonly insert;
  private readonly remove;
  private readonly streamingOf;
  private readonly removeSession;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    this.remove = db.prepare('DELETE FROM messages_fts WHERE rowid = ?');
    this.streamingOf = db.prepare(
      `SELECT pk, content FROM message_rows WHERE sid = ${SID_OF} AND state = 'streaming'`,
    );
    this.removeSession = db.prepare(
      `DELETE FROM messages_fts WHERE rowid IN (SELECT pk FROM message_rows WHERE sid = ${SID_OF} AND state <> 'streaming')`,
    );
  }

  /** Indexes a row; `wasIndexed` when it had been indexed before (a re-completed message). */
  add(pk: number, content: string, wasIndexed: boolean): void {
    if (wasIndexed) this.remove.run(pk);
    this.insert.run(pk, indexableText(content));
  }

  /** Call right before the session's streaming rows are marked partial. */
  addStreamingOf(sessionId: string): void {
    for (const row of this.streamingOf.all(sessionId) as Array<{ pk: number; content: string }>) {
      this.insert.run(row.pk, indexableText(row.content));
    }
  }

  /** Call right before the session's message rows are deleted. */
  removeSessionRows(sessionId: string): void {
    this.removeSession.run(sessionId);
  }
}
