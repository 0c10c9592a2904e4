import {
  applyEvent,
  compactInPlace,
  type Message,
  type RunEvent,
  type SessionStatus,
  type TokenUsage,
  type ViewState,
} from '@shared/domain';
import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';
import type Database from 'better-sqlite3';

/** In-memory state of a session being written: what the next commit puts in its row. */
export interface SessionTally {
  id: string;
  /** Epoch milliseconds; event `t` values are relative to it. */
  createdAt: number;
  status: SessionStatus;
  stopReason: string | null;
  endedAt: number | null;
  lastSeq: number;
  lastT: number;
  messageCount: number;
  tokens: number;
  /** Live fold, compacted at every checkpoint so it stays small. */
  view: ViewState;
  eventsSinceCheckpoint: number;
  /** Streaming messages: text received since the last commit, and usage recorded so far. */
  open: Map<string, { pk: number; pendingText: string; usage: TokenUsage | undefined }>;
}

const usageTotal = (usage: TokenUsage | undefined): number => (usage ? usage.prompt + usage.completion : 0);

/**
 * Writes events and everything derived from them (messages, session counters, checkpoints).
 * Must be called inside a transaction; `finishCommit` writes what was buffered. Statements are
 * prepared once per store.
 */
export class Materializer {
  private readonly insertEvent: Database.Statement;
  private readonly insertStarted: Database.Statement;
  private readonly appendText: Database.Statement;
  private readonly upsertComplete: Database.Statement;
  private readonly insertDropped: Database.Statement;
  private readonly selectMessageState: Database.Statement;
  private readonly updateUsage: Database.Statement;
  private readonly markPartial: Database.Statement;
  private readonly dropStreaming: Database.Statement;
  private readonly insertCheckpoint: Database.Statement;
  private readonly updateSession: Database.Statement;
  private readonly updateFleet: Database.Statement;
  private readonly fts: FtsIndex;

  constructor(
    db: SqliteDatabase,
    /** Events between checkpoints. */
    private readonly checkpointInterval: number,
  ) {
    this.fts = new FtsIndex(db);
    this.insertEvent = db.prepare(
      'INSERT INTO events (session_id, seq, t, kind, agent, payload) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertStarted = db.prepare(`INSERT INTO messages
      (session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, state)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', 'streaming') ON CONFLICT (session_id, id) DO NOTHING`);
    this.appendText = db.prepare(
      'UPDATE messages SET content = content || ? WHERE session_id = ? AND id = ?',
    );
    this.upsertComplete = db.prepare(`INSERT INTO messages
      (session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls,
       tool_results, prompt_tokens, completion_tokens, state, ended_t)
      VALUES (@session, @id, @seq, @t, @thread, @parent, @sender, @receiver, @kind, @content, @meta, @toolCalls,
       @toolResults, @prompt, @completion, @state, @endedT)
      ON CONFLICT (session_id, id) DO UPDATE SET seq = excluded.seq, t = excluded.t,
        thread_id = excluded.thread_id, parent_id = excluded.parent_id, sender = excluded.sender,
        receiver = excluded.receiver, kind = excluded.kind, content = excluded.content, meta = excluded.meta,
        tool_calls = excluded.tool_calls, tool_results = excluded.tool_results,
        prompt_tokens = coalesce(excluded.prompt_tokens, prompt_tokens),
        completion_tokens = coalesce(excluded.completion_tokens, completion_tokens), state = excluded.state,
        ended_t = excluded.ended_t`);
    this.insertDropped = db.prepare(`INSERT INTO messages
      (session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, state, dropped_reason)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?) ON CONFLICT (session_id, id) DO NOTHING`);
    this.selectMessageState = db.prepare(
      'SELECT pk, state, prompt_tokens, completion_tokens FROM messages WHERE session_id = ? AND id = ?',
    );
    this.updateUsage = db.prepare(
      'UPDATE messages SET prompt_tokens = ?, completion_tokens = ? WHERE session_id = ? AND id = ?',
    );
    this.markPartial = db.prepare(
      "UPDATE messages SET state = 'partial', seq = ?, ended_t = ? WHERE session_id = ? AND state = 'streaming'",
    );
    this.dropStreaming = db.prepare("DELETE FROM messages WHERE session_id = ? AND state = 'streaming'");
    this.insertCheckpoint = db.prepare(
      'INSERT OR REPLACE INTO checkpoints (session_id, seq, state) VALUES (?, ?, ?)',
    );
    this.updateSession = db.prepare(`UPDATE sessions SET status = @status, stop_reason = @stopReason,
      ended_at = @endedAt, updated_at = @updatedAt, message_count = @messageCount, tokens = @tokens WHERE id = @id`);
    // Lineage columns (parent, fork point) are written by the fork writer only: no event can
    // make a session read through another one's history.
    this.updateFleet = db.prepare('UPDATE sessions SET fleet_json = ? WHERE id = ?');
  }

  apply(tally: SessionTally, event: RunEvent): void {
    const session = tally.id;
    this.insertEvent.run(session, event.seq, event.t, event.kind, event.agent, JSON.stringify(event.payload));
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
        const result = this.insertStarted.run(
          session,
          p.messageId,
          event.seq,
          event.t,
          p.threadId,
          p.parentId,
          p.from,
          p.to,
          p.kind,
        );
        if (result.changes > 0)
          tally.open.set(p.messageId, {
            pk: Number(result.lastInsertRowid),
            pendingText: '',
            usage: undefined,
          });
        break;
      }
      case 'message.delta': {
        const open = tally.open.get(event.payload.messageId);
        if (open) open.pendingText += event.payload.text;
        break;
      }
      case 'message.completed':
        this.complete(tally, event.payload.message, event.seq, event.t);
        break;
      case 'usage':
        this.recordUsage(tally, event.payload.messageId, event.payload.usage);
        break;
      case 'message.dropped': {
        const m = event.payload.message;
        const result = this.insertDropped.run(
          session,
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
      default:
        break;
    }
    tally.lastSeq = event.seq;
    tally.lastT = event.t;
    applyEvent(tally.view, event);
    tally.eventsSinceCheckpoint += 1;
    if (tally.eventsSinceCheckpoint >= this.checkpointInterval) this.checkpoint(tally);
  }

  /** Writes buffered delta text and the session row. Call before the transaction commits. */
  finishCommit(tally: SessionTally): void {
    this.flushText(tally);
    this.updateSession.run({
      id: tally.id,
      status: tally.status,
      stopReason: tally.stopReason,
      endedAt: tally.endedAt,
      updatedAt: tally.createdAt + Math.round(tally.lastT),
      messageCount: tally.messageCount,
      tokens: tally.tokens,
    });
  }

  /**
   * Streaming messages become partial, keeping the text received so far (stop, import end). Their
   * seq becomes `seq`, the event that closed them, so a fork cut before it does not hold them.
   */
  closeOpenMessages(tally: SessionTally, seq: number = tally.lastSeq, t: number = tally.lastT): void {
    this.flushText(tally);
    this.fts.addStreamingOf(tally.id);
    this.markPartial.run(seq, t, tally.id);
    tally.open.clear();
  }

  /** Streaming messages are removed (never indexed, so the full-text index has nothing of them). */
  private dropOpenMessages(tally: SessionTally): void {
    this.dropStreaming.run(tally.id);
    tally.open.clear();
  }

  checkpoint(tally: SessionTally): void {
    compactInPlace(tally.view);
    this.insertCheckpoint.run(tally.id, tally.lastSeq, JSON.stringify(tally.view));
    tally.eventsSinceCheckpoint = 0;
  }

  private setStatus(tally: SessionTally, status: SessionStatus, t: number): void {
    tally.status = status;
    const final =
      status === 'completed' || status === 'stopped' || status === 'failed' || status === 'interrupted';
    tally.endedAt = final ? tally.createdAt + Math.round(t) : null;
  }

  private flushText(tally: SessionTally): void {
    for (const [id, open] of tally.open) {
      if (open.pendingText === '') continue;
      this.appendText.run(open.pendingText, tally.id, id);
      open.pendingText = '';
    }
  }

  /** The row a message has now (null state: none yet), from memory while it streams. */
  private previous(
    tally: SessionTally,
    id: string,
  ): { pk: number | null; state: string | null; usage: TokenUsage | undefined } {
    const open = tally.open.get(id);
    if (open) return { pk: open.pk, state: 'streaming', usage: open.usage };
    const row = this.selectMessageState.get(tally.id, id) as
      | { pk: number; state: string; prompt_tokens: number | null; completion_tokens: number | null }
      | undefined;
    if (!row) return { pk: null, state: null, usage: undefined };
    const usage =
      row.prompt_tokens === null && row.completion_tokens === null
        ? undefined
        : { prompt: row.prompt_tokens ?? 0, completion: row.completion_tokens ?? 0 };
    return { pk: row.pk, state: row.state, usage };
  }

  private complete(tally: SessionTally, message: Message, seq: number, endedT: number): void {
    const before = this.previous(tally, message.id);
    // Not `RETURNING pk`: with it, FTS5 inserts in the same transaction ran about 4x slower.
    const result = this.upsertComplete.run({
      session: tally.id,
      id: message.id,
      seq,
      t: message.t,
      thread: message.threadId,
      parent: message.parentId,
      sender: message.from,
      receiver: message.to,
      kind: message.kind,
      content: message.content,
      meta: JSON.stringify(message.meta),
      toolCalls: message.toolCalls ? JSON.stringify(message.toolCalls) : null,
      toolResults: message.toolResults ? JSON.stringify(message.toolResults) : null,
      prompt: message.usage?.prompt ?? null,
      completion: message.usage?.completion ?? null,
      // A reply cut off by a stall, a disconnect or a stop stays partial.
      state: message.state === 'partial' ? 'partial' : 'complete',
      endedT,
    });
    const pk = before.pk ?? Number(result.lastInsertRowid);
    this.fts.add(pk, message.content, before.state !== null && before.state !== 'streaming');
    tally.open.delete(message.id);
    if (before.state !== 'complete') tally.messageCount += 1;
    if (message.usage) tally.tokens += usageTotal(message.usage) - usageTotal(before.usage);
  }

  private recordUsage(tally: SessionTally, id: string, usage: TokenUsage): void {
    const before = this.previous(tally, id);
    if (before.state === null) return;
    this.updateUsage.run(usage.prompt, usage.completion, tally.id, id);
    const open = tally.open.get(id);
    if (open) open.usage = usage;
    tally.tokens += usageTotal(usage) - usageTotal(before.usage);
  }
}
