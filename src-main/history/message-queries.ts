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
import { clip, Lineage, type LineageSegment } from './lineage';
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

/**
 * Read-side queries on a session's messages and events. A fork reads through its parent's rows
 * up to its fork point (see Lineage), so every answer covers its whole history; events and
 * messages carry the id of the session asked about.
 */
export class MessageQueries {
  readonly lineage: Lineage;
  private readonly eventPage;
  private readonly eventCount;
  private readonly nearestCheckpoint;
  private readonly cache: StatementCache;

  constructor(db: SqliteDatabase) {
    this.cache = new StatementCache(db);
    this.lineage = new Lineage(db);
    this.eventPage = db.prepare(
      'SELECT seq, t, kind, agent, payload FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
    );
    this.eventCount = db.prepare(
      'SELECT count(*) AS n FROM events WHERE session_id = ? AND seq > ? AND seq <= ?',
    );
    this.nearestCheckpoint = db.prepare(
      'SELECT seq, state FROM checkpoints WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
    );
  }

  /** The session's segments that hold events in `after < seq <= upTo`. */
  private within(sessionId: string, after = 0, upTo = Number.MAX_SAFE_INTEGER): LineageSegment[] {
    return this.lineage
      .segments(sessionId)
      .map((segment) => clip(segment, after, upTo))
      .filter((segment): segment is LineageSegment => segment !== null);
  }

  /**
   * Events with `afterSeq < seq <= toSeq`, in seq order, read lazily in pages (through a fork's
   * prefix). Safe to interleave with writes on the same connection (no cursor is held open
   * across a yield).
   */
  *iterateEvents(sessionId: string, afterSeq = 0, toSeq = Number.MAX_SAFE_INTEGER): Generator<RunEvent> {
    for (const segment of this.within(sessionId, afterSeq, toSeq)) {
      let last = segment.after;
      for (;;) {
        const rows = this.eventPage.all(segment.session, last, segment.upTo, EVENT_PAGE) as EventRow[];
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
        if (rows.length < EVENT_PAGE) break;
        last = (rows[rows.length - 1] as EventRow).seq;
      }
    }
  }

  countEvents(sessionId: string): number {
    let total = 0;
    for (const segment of this.within(sessionId))
      total += (this.eventCount.get(segment.session, segment.after, segment.upTo) as { n: number }).n;
    return total;
  }

  /**
   * The view right after event `seq`: the nearest checkpoint at or before it (a fork's own, or
   * its parent's within the shared prefix) plus a fold of the events in between, compacted
   * (messages holds only those still in flight; page completed ones with
   * `page(..., { before: { seq: seq + 1 } })`).
   */
  seek(sessionId: string, seq: number): ViewState {
    let checkpoint: { seq: number; state: string } | undefined;
    for (const segment of this.within(sessionId, 0, seq).reverse()) {
      checkpoint = this.nearestCheckpoint.get(segment.session, segment.after, segment.upTo) as
        { seq: number; state: string } | undefined;
      if (checkpoint) break;
    }
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
    const agents = new Map<string, AgentEdgeStats>();
    const edges = new Map<string, EdgeCount>();
    const receiverSeqs: Array<{ name: string; lastSeq: number }> = [];
    for (const segment of this.within(sessionId, 0, seq)) {
      const range = [segment.session, segment.after, segment.upTo] as const;
      const senders = this.cache
        .get(
          `SELECT sender AS name, count(*) AS messages,
              coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) AS tokens, max(seq) AS lastSeq
         FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? AND dropped_reason IS NULL GROUP BY sender`,
        )
        .all(...range) as AgentEdgeStats[];
      for (const sender of senders) {
        const known = agents.get(sender.name);
        if (!known) agents.set(sender.name, { ...sender });
        else {
          known.messages += sender.messages;
          known.tokens += sender.tokens;
          known.lastSeq = Math.max(known.lastSeq, sender.lastSeq);
        }
      }
      receiverSeqs.push(
        ...(this.cache
          .get(
            `SELECT receiver AS name, max(seq) AS lastSeq FROM messages
         WHERE session_id = ? AND seq > ? AND seq <= ? AND dropped_reason IS NULL AND receiver != ? GROUP BY receiver`,
          )
          .all(...range, BROADCAST) as Array<{ name: string; lastSeq: number }>),
      );
      const counts = this.cache
        .get(
          `SELECT sender AS "from", receiver AS "to", CASE WHEN kind = 'handoff' THEN 'handoff' ELSE 'message' END AS kind,
              count(*) AS count, max(seq) AS lastSeq
         FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? AND dropped_reason IS NULL GROUP BY 1, 2, 3`,
        )
        .all(...range) as EdgeCount[];
      for (const edge of counts) {
        const key = JSON.stringify([edge.from, edge.to, edge.kind]);
        const known = edges.get(key);
        if (!known) edges.set(key, { ...edge });
        else {
          known.count += edge.count;
          known.lastSeq = Math.max(known.lastSeq, edge.lastSeq);
        }
      }
    }
    for (const { name, lastSeq } of receiverSeqs) {
      const agent = agents.get(name);
      if (agent) agent.lastSeq = Math.max(agent.lastSeq, lastSeq);
      else agents.set(name, { name, messages: 0, tokens: 0, lastSeq });
    }
    return { seq, agents: [...agents.values()], edges: [...edges.values()] };
  }

  thread(sessionId: string, threadId: string, limit = 10_000): StoredMessage[] {
    const rows: MessageRow[] = [];
    for (const segment of this.within(sessionId)) {
      if (rows.length >= limit) break;
      rows.push(
        ...(this.cache
          .get(
            'SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? AND thread_id = ? ORDER BY seq LIMIT ?',
          )
          .all(segment.session, segment.after, segment.upTo, threadId, limit - rows.length) as MessageRow[]),
      );
    }
    return rows.map(toStoredMessage);
  }

  page(sessionId: string, query: MessagePageQuery = {}): MessagePage {
    const limit = Math.min(1000, Math.max(1, Math.trunc(query.limit ?? 100)));
    const filters: string[] = ['session_id = ?', 'seq > ?', 'seq <= ?'];
    const params: Array<string | number> = [];
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
    const order = byTime ? (backwards ? 't DESC, seq DESC' : 't, seq') : backwards ? 'seq DESC' : 'seq';
    const compare = (a: MessageRow, b: MessageRow) =>
      (byTime ? a.t - b.t || a.seq - b.seq : a.seq - b.seq) * (backwards ? -1 : 1);
    const segments = this.within(sessionId);
    // Segments hold disjoint, increasing seq ranges: by seq, the nearest ones fill the page first.
    const visiting = backwards ? [...segments].reverse() : segments;
    let rows: MessageRow[] = [];
    for (const segment of visiting) {
      if (!byTime && rows.length > limit) break;
      const found = this.cache
        .get(`SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`)
        .all(
          segment.session,
          segment.after,
          segment.upTo,
          ...params,
          ...cursorParams,
          limit + 1,
        ) as MessageRow[];
      rows = rows.concat(found);
    }
    rows.sort(compare);
    const more = rows.length > limit;
    const kept = rows.slice(0, limit);
    if (backwards) kept.reverse();
    const items = kept.map(toStoredMessage);
    const first = items[0];
    const last = items[items.length - 1];
    const exists = (comparison: string, item: StoredMessage): boolean => {
      const tuple = byTime ? `(t, seq) ${comparison} (?, ?)` : `seq ${comparison} ?`;
      const values = byTime ? [item.t, item.seq] : [item.seq];
      const statement = this.cache.get(
        `SELECT 1 FROM messages WHERE ${filters.join(' AND ')} AND ${tuple} LIMIT 1`,
      );
      return segments.some(
        (segment) =>
          statement.get(segment.session, segment.after, segment.upTo, ...params, ...values) !== undefined,
      );
    };
    return {
      items,
      hasBefore: backwards ? more : first !== undefined && exists('<', first),
      hasAfter: backwards ? last !== undefined && exists('>', last) : more,
    };
  }

  /**
   * The `position`-th message (1 = the first, in seq order, as `show` numbers them), or null
   * when the session has fewer.
   */
  nth(sessionId: string, position: number): StoredMessage | null {
    let skip = position - 1;
    for (const segment of this.within(sessionId)) {
      const range = [segment.session, segment.after, segment.upTo] as const;
      const count = (
        this.cache
          .get('SELECT count(*) AS n FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?')
          .get(...range) as { n: number }
      ).n;
      if (skip >= count) {
        skip -= count;
        continue;
      }
      const row = this.cache
        .get(
          'SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1 OFFSET ?',
        )
        .get(...range, skip) as MessageRow | undefined;
      return row ? toStoredMessage(row) : null;
    }
    return null;
  }

  /** Messages at or before `seq` (through a fork's prefix). */
  countMessages(sessionId: string, seq = Number.MAX_SAFE_INTEGER): number {
    let total = 0;
    for (const segment of this.within(sessionId, 0, seq)) {
      total += (
        this.cache
          .get('SELECT count(*) AS n FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?')
          .get(segment.session, segment.after, segment.upTo) as { n: number }
      ).n;
    }
    return total;
  }
}
