import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';
import { clip, type Lineage, type LineageSegment } from './lineage';
import { MESSAGE_ROW_COLUMNS, messageRows } from './raw-rows';
import { toStoredMessage, type StoredMessage } from './rows';
import { StatementCache } from './statement-cache';

/** A message and the seq of its first event (its start; its completion when it never streamed). */
export interface MessageStart {
  message: StoredMessage;
  startSeq: number;
}

/** The `messages` view's columns, read from `message_rows` (which also has `first_seq`). */
const ROW_COLUMNS = MESSAGE_ROW_COLUMNS.replace('session_id', '? AS session_id');

/** Reads for the context inspector: a message's start, and the messages completed after a seq. */
export class ContextQueries {
  private readonly cache: StatementCache;

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  /** The message `messageId` of the session (through a fork's prefix) and its start; null when none. */
  start(sessionId: string, messageId: string): MessageStart | null {
    let found: MessageStart | null = null;
    for (const segment of this.lineage.segments(sessionId)) {
      const row = this.cache
        .get(
          `SELECT ${ROW_COLUMNS}, coalesce(first_seq, seq) AS start FROM message_rows
           WHERE sid = ${SID_OF} AND id = ? AND seq > ? AND seq <= ?`,
        )
        .raw()
        .get(sessionId, segment.session, messageId, segment.after, segment.upTo) as unknown[] | undefined;
      if (!row) continue;
      const startSeq = row.pop() as number;
      const [stored] = messageRows([row]);
      if (stored) found = { message: toStoredMessage(stored), startSeq };
    }
    return found;
  }

  /**
   * The session's messages with a seq after `afterSeq` that are no longer streaming (dropped ones
   * included), in seq order, through a fork's prefix. A message still streaming completes at a
   * seq after every one stored now, so reading on from the last seq returned misses none.
   */
  completedAfter(sessionId: string, afterSeq: number): StoredMessage[] {
    const found: StoredMessage[] = [];
    const segments = this.lineage
      .segments(sessionId)
      .map((segment) => clip(segment, afterSeq, Number.MAX_SAFE_INTEGER))
      .filter((segment): segment is LineageSegment => segment !== null);
    for (const segment of segments) {
      const rows = this.cache
        .get(
          `SELECT ${ROW_COLUMNS} FROM message_rows
           WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? AND state <> 'streaming' ORDER BY seq`,
        )
        .raw()
        .all(sessionId, segment.session, segment.after, segment.upTo);
      for (const row of messageRows(rows)) found.push(toStoredMessage(row));
    }
    return found;
  }
}
