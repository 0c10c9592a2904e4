import {
  BROADCAST,
  compactInPlace,
  emptyView,
  foldEvents,
  type RunEvent,
  type ViewState,
} from '@shared/domain';
import type { AgentEdgeStats, EdgeCount, SessionEdgeStats } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { StatementCache } from './statement-cache';
import { toStoredMessage, type MessageRow, type StoredMessage } from './rows';

/** A paging position: after/before a message's seq, or after/before a time (ms since session start). */
export type MessageCursor = { seq: number } | { t: number };

export interface MessagePageQuery {
  /** Messages strictly after this position, oldest first. */
  after?: MessageCursor;
  /** Messages strictly before this position (the page nearest to it), oldest first. */
  before?: MessageCursor;
  /** Without a cursor: the first page (`start`, default) or the last one (`end`). */
  from?: 'start' | 'end';
  /** 1..1000, default 100. */
  limit?: number;
  threadId?: string;
  /** Messages this agent sent or that were addressed to it by name. */
  agent?: string;
}

export interface MessagePage {
  items: StoredMessage[];
  /** More matching messages exist before the first / after the last item. */
  hasBefore: boolean;
  hasAfter: boolean;
}

interface EventRow {
  seq: number;
  t: number;
  kind: string;
  agent: string | null;
  payload: string;
}

/** Events are read in pages of this many rows, so no statement stays open between yields. */
const EVENT_PAGE = 512;

/** Read-side queries on a session's messages and events. */
export class MessageQueries {
  private readonly eventPage;
  private readonly eventCount;
  private readonly nearestCheckpoint;
  private readonly threadRows;
  private readonly cache: StatementCache;

  constructor(db: SqliteDatabase) {
    this.cache = new StatementCache(db);
    this.eventPage = db.prepare(
      'SELECT seq, t, kind, agent, payload FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
    );
    this.eventCount = db.prepare('SELECT count(*) AS n FROM events WHERE session_id = ?');
    this.nearestCheckpoint = db.prepare(
      'SELECT seq, state FROM checkpoints WHERE session_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
    );
    this.threadRows = db.prepare(
      'SELECT * FROM messages WHERE session_id = ? AND thread_id = ? ORDER BY seq LIMIT ?',
    );
  }

  /**
   * Events with `afterSeq < seq <= toSeq`, in seq order, read lazily in pages. Safe to interleave
   * with writes on the same connection (no cursor is held open across a yield).
   */
  *iterateEvents(sessionId: string, afterSeq = 0, toSeq = Number.MAX_SAFE_INTEGER): Generator<RunEvent> {
    let last = afterSeq;
    for (;;) {
      const rows = this.eventPage.all(sessionId, last, toSeq, EVENT_PAGE) as EventRow[];
      for (const row of rows) {
        // Only the store writes events, from typed RunEvents, so kind and payload agree.
        yield {
          sessionId,
          seq: row.seq,
          t: row.t,
          agent: row.agent,
          kind: row.kind,
          payload: JSON.parse(row.payload),
        } as RunEvent;
      }
      if (rows.length < EVENT_PAGE) return;
      last = (rows[rows.length - 1] as EventRow).seq;
    }
  }

  countEvents(sessionId: string): number {
    return (this.eventCount.get(sessionId) as { n: number }).n;
  }

  /**
   * The view right after event `seq`: the nearest checkpoint at or before it plus a fold of the
   * events in between, compacted (messages holds only those still in flight; page completed
   * ones with `page(..., { before: { seq: seq + 1 } })`).
   */
  seek(sessionId: string, seq: number): ViewState {
    const checkpoint = this.nearestCheckpoint.get(sessionId, seq) as
      { seq: number; state: string } | undefined;
    const start = checkpoint ? (JSON.parse(checkpoint.state) as ViewState) : emptyView();
    const view = foldEvents(this.iterateEvents(sessionId, checkpoint?.seq ?? 0, seq), start);
    compactInPlace(view);
    return view;
  }

  /**
   * Graph totals of the messages completed at or before `seq` (dropped ones left out): per
   * sender count, tokens and last seq (receivers' last seq too), and per (sender, receiver, kind)
   * the number of messages, handoff messages as their own kind. One pass over messages_by_seq.
   */
  edgeStats(sessionId: string, seq: number): SessionEdgeStats {
    const senders = this.cache
      .get(
        `SELECT sender AS name, count(*) AS messages,
              coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) AS tokens, max(seq) AS lastSeq
         FROM messages WHERE session_id = ? AND seq <= ? AND dropped_reason IS NULL GROUP BY sender`,
      )
      .all(sessionId, seq) as AgentEdgeStats[];
    const receivers = this.cache
      .get(
        `SELECT receiver AS name, max(seq) AS lastSeq FROM messages
         WHERE session_id = ? AND seq <= ? AND dropped_reason IS NULL AND receiver != ? GROUP BY receiver`,
      )
      .all(sessionId, seq, BROADCAST) as Array<{ name: string; lastSeq: number }>;
    const edges = this.cache
      .get(
        `SELECT sender AS "from", receiver AS "to", CASE WHEN kind = 'handoff' THEN 'handoff' ELSE 'message' END AS kind,
              count(*) AS count, max(seq) AS lastSeq
         FROM messages WHERE session_id = ? AND seq <= ? AND dropped_reason IS NULL GROUP BY 1, 2, 3`,
      )
      .all(sessionId, seq) as EdgeCount[];
    const agents = new Map(senders.map((agent) => [agent.name, { ...agent }]));
    for (const { name, lastSeq } of receivers) {
      const agent = agents.get(name);
      if (agent) agent.lastSeq = Math.max(agent.lastSeq, lastSeq);
      else agents.set(name, { name, messages: 0, tokens: 0, lastSeq });
    }
    return { seq, agents: [...agents.values()], edges: edges.map((edge) => ({ ...edge })) };
  }

  thread(sessionId: string, threadId: string, limit = 10_000): StoredMessage[] {
    return (this.threadRows.all(sessionId, threadId, limit) as MessageRow[]).map(toStoredMessage);
  }

  page(sessionId: string, query: MessagePageQuery = {}): MessagePage {
    const limit = Math.min(1000, Math.max(1, Math.trunc(query.limit ?? 100)));
    const filters: string[] = ['session_id = ?'];
    const params: Array<string | number> = [sessionId];
    if (query.threadId !== undefined) {
      filters.push('thread_id = ?');
      params.push(query.threadId);
    }
    if (query.agent !== undefined) {
      filters.push('(sender = ? OR receiver = ?)');
      params.push(query.agent, query.agent);
    }
    const cursor = query.before ?? query.after;
    const byTime = cursor !== undefined && 't' in cursor;
    const key = byTime ? 't, seq' : 'seq';
    const where = [...filters];
    const cursorParams: number[] = [];
    if (query.after) {
      where.push('t' in query.after ? 't > ?' : 'seq > ?');
      cursorParams.push('t' in query.after ? query.after.t : query.after.seq);
    }
    if (query.before) {
      where.push('t' in query.before ? 't < ?' : 'seq < ?');
      cursorParams.push('t' in query.before ? query.before.t : query.before.seq);
    }
    const backwards = query.before !== undefined || (cursor === undefined && query.from === 'end');
    const order = backwards
      ? key
          .split(', ')
          .map((k) => `${k} DESC`)
          .join(', ')
      : key;
    const rows = this.cache
      .get(`SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`)
      .all(...params, ...cursorParams, limit + 1) as MessageRow[];
    const more = rows.length > limit;
    const kept = rows.slice(0, limit);
    if (backwards) kept.reverse();
    const items = kept.map(toStoredMessage);
    const first = items[0];
    const last = items[items.length - 1];
    const exists = (comparison: string, item: StoredMessage): boolean => {
      const tuple = byTime ? `(t, seq) ${comparison} (?, ?)` : `seq ${comparison} ?`;
      const values = byTime ? [item.t, item.seq] : [item.seq];
      return (
        this.cache
          .get(`SELECT 1 FROM messages WHERE ${filters.join(' AND ')} AND ${tuple} LIMIT 1`)
          .get(...params, ...values) !== undefined
      );
    };
    return {
      items,
      hasBefore: backwards ? more : first !== undefined && exists('<', first),
      hasAfter: backwards ? last !== undefined && exists('>', last) : more,
    };
  }
}
