import {
  applyEvent,
  compactInPlace,
  type RunEvent,
  type SessionStatus,
  type UsagePricer,
} from '@shared/domain';
import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';
import {
  compactUsage,
  completionPayload,
  encodeUnreferred,
  readsBackExactly,
  storedKind,
} from './event-codec';
import { envelopeOf, MessageRefs } from './message-refs';
import { MessageCompletions } from './message-completions';
import { completedRow, INSERT_DROPPED, INSERT_STARTED, INSERT_WHOLE } from './message-row-sql';
import { RowBatch } from './row-batch';
import type { SessionTally } from './session-tally';
import { createPricer, priced } from './pricing';
import type Database from 'better-sqlite3';

export type { SessionTally } from './session-tally';

export type { OpenMessage } from './message-refs';

type MessageStarted = Extract<RunEvent, { kind: 'message.started' }>;
type MessageCompleted = Extract<RunEvent, { kind: 'message.completed' }>;

/**
 * Writes events and everything derived from them (messages, session counters, checkpoints).
 * Must be called inside a transaction; `finishCommit` writes what was buffered. Statements are
 * prepared once per store.
 *
 * Message text is stored once, in `message_rows.content`: starts, deltas and completions of a
 * message refer to its row (`event_log.msg`) instead of repeating it (see event-codec.ts), and
 * the full-text index is contentless. Before a row changes other than by appending streamed
 * text, the events that read from it are written out whole (see message-refs.ts).
 */
/** Prices by the table alone, for writers given no pricer (imports, traces, salvage). */
const TABLE_PRICER = createPricer();

/**
 * Sets the cost of the usage an event carries when nobody priced it (an import's, a trace's): the
 * stored event then holds the same cost every reader shows. A live run's usage comes priced.
 */
function priceEvent(event: RunEvent, pricer: UsagePricer): void {
  if (event.kind === 'message.completed') {
    const usage = event.payload.message.usage;
    if (usage && usage.cost === undefined) event.payload.message.usage = priced(usage, pricer);
  } else if (event.kind === 'usage' && event.payload.usage.cost === undefined) {
    event.payload.usage = priced(event.payload.usage, pricer);
  }
}

export class Materializer {
  private readonly sidOf: Database.Statement;
  private readonly insertEvent: Database.Statement;
  private readonly insertStarted: Database.Statement;
  private readonly insertWhole: Database.Statement;
  private readonly insertDropped: Database.Statement;
  private readonly markPartial: Database.Statement;
  private readonly dropStreaming: Database.Statement;
  private readonly insertCheckpoint: Database.Statement;
  private readonly updateSession: Database.Statement;
  private readonly updateFleet: Database.Statement;
  private readonly fts: FtsIndex;
  private readonly pricer: UsagePricer;
  private readonly refs: MessageRefs;
  private readonly completions: MessageCompletions;
  /** With `batchRows`: event rows held for multi-row inserts (see flushRows). */
  private readonly eventRows: RowBatch | null;
  /** With `batchRows`: full-text rows of whole messages held for multi-row inserts. */
  private readonly ftsRows: RowBatch | null;
  /** While applyWholeMessage applies its pair: the completion, and the row once inserted. */
  private whole: { completed: MessageCompleted; pk: number | null } | null = null;

  constructor(
    db: SqliteDatabase,
    /** Events between checkpoints. */
    private readonly checkpointInterval: number,
    /**
     * Event rows and whole messages' full-text rows are inserted many to a statement (RowBatch),
     * each batch at the latest before anything that reads or changes such rows and in
     * `finishCommit`: the same rows with fewer statements (an import's writing thread).
     */
    options: { batchRows?: boolean; pricer?: UsagePricer } = {},
  ) {
    this.pricer = options.pricer ?? TABLE_PRICER;
    this.fts = new FtsIndex(db);
    this.refs = new MessageRefs(db);
    const batched = options.batchRows === true;
    this.eventRows = batched
      ? new RowBatch(db, 'INSERT INTO event_log (sid, seq, t, kind_code, agent, msg, payload)', 7)
      : null;
    this.ftsRows = batched ? new RowBatch(db, 'INSERT INTO messages_fts (rowid, content)', 2) : null;
    this.completions = new MessageCompletions(db, this.fts, this.refs, this.ftsRows);
    this.sidOf = db.prepare('SELECT sid FROM sessions WHERE id = ?');
    this.insertEvent = db.prepare(
      'INSERT INTO event_log (sid, seq, t, kind_code, agent, msg, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertStarted = db.prepare(INSERT_STARTED);
    this.insertWhole = db.prepare(INSERT_WHOLE);
    this.insertDropped = db.prepare(INSERT_DROPPED);
    this.markPartial = db.prepare(
      "UPDATE message_rows SET state = 'partial', seq = ?, ended_t = ? WHERE sid = ? AND state = 'streaming'",
    );
    this.dropStreaming = db.prepare("DELETE FROM message_rows WHERE sid = ? AND state = 'streaming'");
    this.insertCheckpoint = db.prepare(
      'INSERT OR REPLACE INTO checkpoints (session_id, seq, state) VALUES (?, ?, ?)',
    );
    this.updateSession = db.prepare(`UPDATE sessions SET status = @status, stop_reason = @stopReason,
      ended_at = @endedAt, updated_at = @updatedAt, message_count = @messageCount, tokens = @tokens,
      cost = @cost, unpriced_calls = @unpricedCalls, busy_ms = @busyMs WHERE id = @id`);
    // Lineage columns (parent, fork point) are written by the fork writer only: no event can
    // make a session read through another one's history.
    this.updateFleet = db.prepare('UPDATE sessions SET fleet_json = ? WHERE id = ?');
  }

  apply(tally: SessionTally, event: RunEvent): void {
    priceEvent(event, this.pricer);
    const session = tally.id;
    const sid = this.sid(tally);
    /** The row the stored event refers to, and its payload as stored (null: the whole payload). */
    let msg: number | null = null;
    let stored: string | null = null;
    switch (event.kind) {
      case 'session.started': {
        // A later start marks a fork's first own event: replies still streaming there belong to
        // the branch not taken (the fold drops them the same way).
        if (tally.lastSeq > 0) this.dropOpenMessages(tally);
        this.updateFleet.run(JSON.stringify(event.payload.fleet), session);
        this.setStatus(tally, 'running', event.t);
        break;
      }
      case 'session.continued':
        this.setStatus(tally, 'running', event.t);
        tally.stopReason = null;
        break;
      case 'session.status':
        this.setStatus(tally, event.payload.status, event.t);
        break;
      case 'session.stopped':
        this.setStatus(tally, event.payload.status, event.t);
        tally.stopReason = event.payload.stopReason;
        this.closeOpenMessages(tally, event.seq, event.t);
        break;
      case 'message.started': {
        const p = event.payload;
        if (this.whole) {
          const { completed } = this.whole;
          const m = completed.payload.message;
          const result = this.insertWhole.run(completedRow(sid, m, completed.seq, completed.t, event.seq));
          // The message has a row already: the start writes nothing, as INSERT_STARTED would not.
          this.whole.pk = result.changes > 0 ? Number(result.lastInsertRowid) : null;
          if (this.whole.pk !== null) {
            msg = this.whole.pk;
            stored = '';
          }
          break;
        }
        const result = this.insertStarted.run(
          sid,
          p.messageId,
          event.seq,
          event.t,
          p.threadId,
          p.parentId,
          p.from,
          p.to,
          p.kind,
          event.seq,
        );
        if (result.changes > 0) {
          const pk = Number(result.lastInsertRowid);
          const exact = readsBackExactly(p.messageId, p.threadId, p.parentId, p.from, p.to, p.kind);
          tally.open.set(p.messageId, {
            pk,
            pendingText: '',
            usage: undefined,
            length: 0,
            envelope: envelopeOf(p.threadId, p.parentId, p.from, p.to, p.kind),
            whole: !exact,
          });
          if (exact) {
            msg = pk;
            stored = '';
          }
        }
        break;
      }
      case 'message.delta': {
        const open = tally.open.get(event.payload.messageId);
        if (open) {
          stored = this.refs.delta(open, event.payload.text);
          if (stored !== null) msg = open.pk;
        }
        break;
      }
      case 'message.completed': {
        const m = event.payload.message;
        const wholePk = this.whole?.pk ?? null;
        // A completion of a row that exists may rewrite the events reading it and its index entry.
        if (wholePk === null) this.flushRows();
        const pk =
          wholePk === null
            ? this.completions.complete(tally, sid, m, event.seq, event.t)
            : this.completions.completeWhole(tally, m, wholePk);
        if (readsBackExactly(m.id, m.threadId, m.parentId, m.from, m.to, m.kind, m.content)) {
          msg = pk;
          stored = completionPayload(m);
        }
        break;
      }
      case 'usage':
        msg = this.completions.recordUsage(tally, sid, event.payload.messageId, event.payload.usage);
        if (!readsBackExactly(event.payload.messageId)) msg = null;
        if (msg !== null)
          stored = compactUsage(event.payload.usage) ?? JSON.stringify({ usage: event.payload.usage });
        break;
      case 'message.dropped': {
        const m = event.payload.message;
        this.flushRows();
        const result = this.insertDropped.run(
          sid,
          m.id,
          event.seq,
          m.t,
          m.threadId,
          m.parentId,
          m.from,
          m.to,
          m.kind,
          m.content,
          JSON.stringify(m.meta),
          event.payload.reason,
        );
        if (result.changes > 0) this.fts.add(Number(result.lastInsertRowid), m.content, false);
        break;
      }
      case 'tool.requested':
      case 'handoff':
      case 'error': {
        const ref = this.refs.refer(sid, event);
        if (ref) {
          msg = ref.msg;
          stored = ref.payload;
        }
        break;
      }
      default:
        break;
    }
    const payload = stored ?? encodeUnreferred(event);
    const kind = storedKind(event.kind);
    if (this.eventRows) this.eventRows.add(sid, event.seq, event.t, kind, event.agent, msg, payload);
    else this.insertEvent.run(sid, event.seq, event.t, kind, event.agent, msg, payload);
    tally.lastSeq = event.seq;
    tally.lastT = event.t;
    applyEvent(tally.view, event);
    tally.eventsSinceCheckpoint += 1;
    if (tally.eventsSinceCheckpoint >= this.checkpointInterval) this.checkpoint(tally);
  }

  /**
   * A message started and completed by two consecutive events, as imports hold them: its row is
   * inserted once as the completion leaves it, instead of inserted and then updated. Stores the
   * same rows and events as `apply` of each; when the start cannot refer to its row exactly, its
   * envelope differs from the completion's or the message has a row already, that is what runs.
   */
  applyWholeMessage(tally: SessionTally, started: MessageStarted, completed: MessageCompleted): void {
    const p = started.payload;
    const m = completed.payload.message;
    const same =
      m.id === p.messageId &&
      readsBackExactly(p.messageId, p.threadId, p.parentId, p.from, p.to, p.kind) &&
      p.threadId === m.threadId &&
      p.parentId === m.parentId &&
      p.from === m.from &&
      p.to === m.to &&
      p.kind === m.kind;
    priceEvent(completed, this.pricer);
    if (same) this.whole = { completed, pk: null };
    try {
      this.apply(tally, started);
      this.apply(tally, completed);
    } finally {
      this.whole = null;
    }
  }

  /**
   * Writes buffered delta text and the session row. Call before the transaction commits.
   * `inProgress`: the row stays running and not ended whatever the events so far say (an import
   * written in several transactions, until its last).
   */
  finishCommit(tally: SessionTally, options: { inProgress?: boolean } = {}): void {
    this.flushRows();
    this.flushText(tally);
    const inProgress = options.inProgress === true;
    this.updateSession.run({
      id: tally.id,
      status: inProgress ? 'running' : tally.status,
      stopReason: inProgress ? null : tally.stopReason,
      endedAt: inProgress ? null : tally.endedAt,
      updatedAt: tally.createdAt + Math.round(tally.lastT),
      messageCount: tally.messageCount,
      tokens: tally.tokens,
      cost: tally.cost,
      unpricedCalls: tally.unpricedCalls,
      busyMs: tally.busyMs,
    });
  }

  /**
   * Streaming messages become partial, keeping the text received so far (stop, import end). Their
   * seq becomes `seq`, the event that closed them, so a fork cut before it does not hold them.
   */
  closeOpenMessages(tally: SessionTally, seq: number = tally.lastSeq, t: number = tally.lastT): void {
    this.flushRows();
    this.flushText(tally);
    this.fts.addStreamingOf(tally.id);
    this.markPartial.run(seq, t, this.sid(tally));
    tally.open.clear();
  }

  /**
   * Streaming messages are removed (never indexed, so the full-text index has nothing of them);
   * the events that read their text keep it.
   */
  private dropOpenMessages(tally: SessionTally): void {
    const sid = this.sid(tally);
    this.flushRows();
    this.flushText(tally);
    this.refs.writeOutStreaming(sid);
    this.dropStreaming.run(sid);
    tally.open.clear();
  }

  checkpoint(tally: SessionTally): void {
    compactInPlace(tally.view);
    this.insertCheckpoint.run(tally.id, tally.lastSeq, JSON.stringify(tally.view));
    tally.eventsSinceCheckpoint = 0;
  }

  private sid(tally: SessionTally): number {
    if (tally.sid === undefined) {
      const row = this.sidOf.get(tally.id) as { sid: number } | undefined;
      if (!row) throw new Error(`No session row for ${tally.id}.`);
      tally.sid = row.sid;
    }
    return tally.sid;
  }

  private setStatus(tally: SessionTally, status: SessionStatus, t: number): void {
    tally.status = status;
    const final =
      status === 'completed' || status === 'stopped' || status === 'failed' || status === 'interrupted';
    tally.endedAt = final ? tally.createdAt + Math.round(t) : null;
  }

  /** Inserts the event and full-text rows held back (batchRows). */
  private flushRows(): void {
    this.eventRows?.flush();
    this.ftsRows?.flush();
  }

  private flushText(tally: SessionTally): void {
    for (const open of tally.open.values()) this.refs.flush(open);
  }
}
