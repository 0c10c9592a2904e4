import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';
import { clip, type Lineage, type LineageSegment } from './lineage';
import { MESSAGE_ROW_COLUMNS, messageRows } from './raw-rows';
import { toStoredMessage, type StoredMessage } from './rows';
import { StatementCache } from './statement-cache';

/** A message and what was said before its writer's model call (see `ContextQueries.before`). */
export interface MessageWithEarlier {
  message: StoredMessage;
  /** Seq of the message's first event (its start; its completion when it never streamed). */
  startSeq: number;
  /** Messages completed before `startSeq`, dropped ones included, in seq order. */
  earlier: StoredMessage[];
}

/** The `messages` view's columns, read from `message_rows` (which also has `first_seq`). */
const ROW_COLUMNS = MESSAGE_ROW_COLUMNS.replace('session_id', '? AS session_id');

/** Reads for the context inspector: a message and the messages its writer could have been shown. */
export class ContextQueries {
  private readonly cache: StatementCache;

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  /**
   * The message `messageId` of the session (through a fork's prefix), with every message that
   * completed before it started: the model call that wrote it was made from those (a message
   * completed while it streamed, by an agent running in parallel, was not in its request).
   * Null when the session has no such message.
   */
  before(sessionId: string, messageId: string): MessageWithEarlier | null {
    const segments = this.lineage.segments(sessionId);
    let found: { message: StoredMessage; startSeq: number } | null = null;
    for (const segment of segments) {
      const row = this.cache
        .get(
          `SELECT ${ROW_COLUMNS}, coalesce(first_seq, seq) AS start FROM message_rows m
           WHERE sid = ${SID_OF} AND id = ? AND seq > ? AND seq <= ?`,
        )
        .raw()
        .get(sessionId, segment.session, messageId, segment.after, segment.upTo) as unknown[] | undefined;
      if (!row) continue;
      const startSeq = row.pop() as number;
      const [stored] = messageRows([row]);
      if (stored) found = { message: toStoredMessage(stored), startSeq };
    }
    if (!found) return null;
    const earlier: StoredMessage[] = [];
    const within = segments
      .map((segment) => clip(segment, 0, found.startSeq - 1))
      .filter((segment): segment is LineageSegment => segment !== null);
    for (const segment of within) {
      const rows = this.cache
        .get(
          `SELECT ${ROW_COLUMNS} FROM message_rows
           WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? AND state <> 'streaming' ORDER BY seq`,
        )
        .raw()
        .all(sessionId, segment.session, segment.after, segment.upTo);
      for (const row of messageRows(rows)) earlier.push(toStoredMessage(row));
    }
    return { ...found, earlier };
  }
}
