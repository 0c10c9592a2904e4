import type { Message, RunEvent, TokenUsage } from '@shared/domain';
import type { SqliteDatabase } from './database';
import {
  compactJson,
  EventDecoder,
  readsBackExactly,
  STORED_EVENT_COLUMNS,
  toolCallIndex,
  type StoredEventRow,
} from './event-codec';

/** A message that is streaming in a session being written. */
export interface OpenMessage {
  pk: number;
  pendingText: string;
  usage: TokenUsage | undefined;
  /** Length of the text streamed so far (row + pending, UTF-16 units); read from the row when unknown. */
  length?: number;
  /** Thread, parent, sender, receiver and kind it started with; read from the row when unknown. */
  envelope?: string;
  /** Set once a delta could not refer to the row (see readsBackExactly): later ones are stored whole. */
  whole?: boolean;
}

/** The `message_rows` fields a completion compares against, of a message that was streaming. */
interface StreamingRow {
  content: string;
  thread_id: string;
  parent_id: string | null;
  sender: string;
  receiver: string;
  kind: string;
  first_seq: number | null;
}

/** What the writer stores for an event: the row it refers to and its compact payload. */
export interface StoredRef {
  msg: number;
  payload: string;
}

export const envelopeOf = (
  thread: string,
  parent: string | null,
  from: string,
  to: string,
  kind: string,
): string => JSON.stringify([thread, parent, from, to, kind]);

/**
 * The write side of events that refer to their message's row (see event-codec.ts): a
 * streaming row's text, and writing events out whole before the row they read changes.
 * `message_rows.first_seq` is the first event that reads a row (null: none does).
 */
export class MessageRefs {
  private readonly appendText;
  private readonly selectStreaming;
  private readonly selectRef;
  private readonly setFirstSeq;
  private readonly selectStreamingOf;
  private readonly referringEvents;
  private readonly rewriteEvent;
  private readonly clearFirstSeq;
  private readonly decoder: EventDecoder;

  constructor(db: SqliteDatabase) {
    this.decoder = new EventDecoder(db);
    this.appendText = db.prepare('UPDATE message_rows SET content = content || ? WHERE pk = ?');
    this.selectStreaming = db.prepare(
      'SELECT content, thread_id, parent_id, sender, receiver, kind, first_seq FROM message_rows WHERE pk = ?',
    );
    this.selectRef = db.prepare(
      'SELECT pk, tool_calls, first_seq FROM message_rows WHERE sid = ? AND id = ?',
    );
    this.setFirstSeq = db.prepare('UPDATE message_rows SET first_seq = ? WHERE pk = ?');
    this.selectStreamingOf = db.prepare(
      "SELECT pk, first_seq FROM message_rows WHERE sid = ? AND state = 'streaming'",
    );
    this.referringEvents = db.prepare(
      `SELECT ${STORED_EVENT_COLUMNS} FROM event_log INDEXED BY event_log_by_msg
       WHERE sid = ? AND msg = ? AND msg IS NOT NULL AND seq >= ?`,
    );
    this.rewriteEvent = db.prepare('UPDATE event_log SET msg = NULL, payload = ? WHERE sid = ? AND seq = ?');
    this.clearFirstSeq = db.prepare('UPDATE message_rows SET first_seq = NULL WHERE pk = ?');
  }

  /** Appends the message's buffered delta text to its row. */
  flush(open: OpenMessage): void {
    if (open.pendingText === '') return;
    this.appendText.run(open.pendingText, open.pk);
    open.pendingText = '';
  }

  /** A delta of `open`: its `[offset, length]` in the row, or null when it must be stored whole. */
  delta(open: OpenMessage, text: string): string | null {
    if (!open.whole && !readsBackExactly(text)) open.whole = true;
    let stored: string | null = null;
    if (!open.whole) {
      if (open.length === undefined) {
        const row = this.selectStreaming.get(open.pk) as StreamingRow;
        open.length = row.content.length + open.pendingText.length;
      }
      stored = `[${open.length},${text.length}]`;
      open.length += text.length;
    }
    open.pendingText += text;
    return stored;
  }

  /**
   * A tool request, handoff or error naming a message of this session: the payload without
   * `messageId` (a tool request: the index of its call in the row's tool calls), or null.
   */
  refer(
    sid: number,
    event: Extract<RunEvent, { kind: 'tool.requested' | 'handoff' | 'error' }>,
  ): StoredRef | null {
    const { messageId, ...rest } = event.payload;
    if (typeof messageId !== 'string' || !readsBackExactly(messageId)) return null;
    const row = this.selectRef.get(sid, messageId) as
      { pk: number; tool_calls: string | null; first_seq: number | null } | undefined;
    if (!row) return null;
    const ref = { msg: row.pk, payload: compactJson(rest) };
    if (event.kind !== 'tool.requested' || Object.keys(rest).length !== 3) return ref;
    const index = toolCallIndex(row.tool_calls, event.payload);
    if (index === null) return ref;
    // It now reads the row's tool calls: a later change of the row writes it out first.
    if (row.first_seq === null) this.setFirstSeq.run(event.seq, row.pk);
    return { msg: row.pk, payload: `[${index}]` };
  }

  /**
   * Writes the events from `fromSeq` on that read row `pk` out whole, so the row can change.
   * Call with the row (and its streamed text) as those events saw it.
   */
  writeOut(sid: number, pk: number, fromSeq: number | null): void {
    if (fromSeq === null) return;
    for (const row of this.referringEvents.all(sid, pk, fromSeq) as StoredEventRow[])
      this.rewriteEvent.run(JSON.stringify(this.decoder.payloadOf(row)), sid, row.seq);
    this.clearFirstSeq.run(pk);
  }

  /** Before the session's streaming rows are deleted (their text flushed): their events keep it. */
  writeOutStreaming(sid: number): void {
    for (const row of this.selectStreamingOf.all(sid) as Array<{ pk: number; first_seq: number | null }>)
      this.writeOut(sid, row.pk, row.first_seq);
  }

  /**
   * Before a completion replaces the row of a message that was streaming: when its text does not
   * go on from what streamed, or its envelope differs from the start's, the start and deltas
   * are written out whole.
   */
  beforeCompletion(sid: number, open: OpenMessage, message: Message): void {
    const envelope = envelopeOf(message.threadId, message.parentId, message.from, message.to, message.kind);
    if (open.length === 0 && open.envelope === envelope) return;
    const row = this.selectStreaming.get(open.pk) as StreamingRow;
    const streamed = row.content + open.pendingText;
    const same = envelopeOf(row.thread_id, row.parent_id, row.sender, row.receiver, row.kind) === envelope;
    if (same && message.content.startsWith(streamed)) return;
    this.flush(open);
    this.writeOut(sid, open.pk, row.first_seq);
  }
}
