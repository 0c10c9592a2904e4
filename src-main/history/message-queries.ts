import { compactInPlace, emptyView, foldEvents, type RunEvent, type ViewState } from '@shared/domain';
import type { SessionEdgeStats, TurnIndex } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { EdgeTallies, emptyTally, mergeTally } from './edge-tallies';
import { clip, Lineage, segmentsFromMessage, type LineageSegment } from './lineage';
import { StatementCache } from './statement-cache';
import { EventDecoder, SID_OF, STORED_EVENT_COLUMNS, type StoredEventRow } from './event-codec';
import { MESSAGE_ROW_COLUMNS, messageRows, storedEvents } from './raw-rows';
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

/** Which turns `MessageQueries.turns` lists (see there). */
export interface TurnQuery {
  agent?: string;
  aroundSeq: number;
  limit: number;
}

export interface MessagePage {
  items: StoredMessage[];
  /** More matching messages exist before the first / after the last item. */
  hasBefore: boolean;
  hasAfter: boolean;
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
  private readonly decoder: EventDecoder;
  private readonly eventCount;
  private readonly nearestCheckpoint;
  private readonly cache: StatementCache;
  private readonly tallies: EdgeTallies;

  constructor(db: SqliteDatabase) {
    this.cache = new StatementCache(db);
    this.lineage = new Lineage(db);
    this.tallies = new EdgeTallies(db);
    this.decoder = new EventDecoder(db);
    this.eventPage = db
      .prepare(
        `SELECT ${STORED_EVENT_COLUMNS} FROM event_log WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      )
      .raw();
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
        const rows = storedEvents(this.eventPage.all(segment.session, last, segment.upTo, EVENT_PAGE));
        // Decoded against the rows of the session that stored them (a fork's parent, say).
        yield* this.decoder.decode(rows, sessionId);
        if (rows.length < EVENT_PAGE) break;
        last = (rows[rows.length - 1] as StoredEventRow).seq;
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
   * the number of messages, handoff messages as their own kind. From each segment's prefix
   * tallies (see EdgeTallies): a segment's rows all lie after its `after`, so the tally of its
   * session up to `upTo` is the segment's.
   */
  edgeStats(sessionId: string, seq: number): SessionEdgeStats {
    const total = emptyTally();
    for (const segment of this.within(sessionId, 0, seq))
      mergeTally(total, this.tallies.tallyAt(segment.session, segment.upTo));
    for (const [name, lastSeq] of total.receivers) {
      const agent = total.agents.get(name);
      if (agent) agent.lastSeq = Math.max(agent.lastSeq, lastSeq);
      else total.agents.set(name, { name, messages: 0, tokens: 0, lastSeq });
    }
    return { seq, agents: [...total.agents.values()], edges: [...total.edges.values()] };
  }

  /**
   * Builds at most `buckets` more of the edge tallies `edgeStats(sessionId, seq)` reads; true
   * once they are all there (see EdgeTallies.prepare).
   */
  prepareEdges(sessionId: string, seq: number, buckets: number): boolean {
    let ready = true;
    for (const segment of this.within(sessionId, 0, seq))
      if (ready) ready = this.tallies.prepare(segment.session, segment.upTo, buckets);
    return ready;
  }

  /** Seq of the last stored event (through a fork's prefix); 0 when there is none. */
  lastSeq(sessionId: string): number {
    for (const segment of this.within(sessionId).reverse()) {
      const row = this.cache
        .get('SELECT max(seq) AS last FROM events WHERE session_id = ? AND seq > ? AND seq <= ?')
        .get(segment.session, segment.after, segment.upTo) as { last: number | null };
      if (row.last !== null) return row.last;
    }
    return 0;
  }

  /**
   * Every sender's number of messages (each a turn: dropped and tool messages included), and
   * for `agent` the seqs of up to `limit` of its messages nearest to `aroundSeq` (half before),
   * with the position of the first among all of its messages. A message's seq is where it
   * completed (or, still streaming, where it started).
   */
  turns(sessionId: string, query: TurnQuery): TurnIndex {
    const counts = emptyTally();
    const segments = this.within(sessionId);
    for (const segment of segments) mergeTally(counts, this.tallies.tallyAt(segment.session, segment.upTo));
    const agents = [...counts.turns.entries()].map(([name, count]) => ({ name, count }));
    if (query.agent === undefined) return { agents, agent: null, firstIndex: 0, seqs: [] };
    const agent = query.agent;
    const limit = Math.max(1, Math.min(1000, Math.trunc(query.limit)));
    const around = query.aroundSeq;
    const bySender = (sql: string) => this.cache.get(sql);
    const before: number[] = [];
    for (const segment of [...segments].reverse()) {
      if (before.length >= Math.ceil(limit / 2)) break;
      const rows = bySender(
        'SELECT seq FROM messages WHERE session_id = ? AND sender = ? AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?',
      )
        .all(
          segment.session,
          agent,
          segment.after,
          Math.min(segment.upTo, around),
          Math.ceil(limit / 2) - before.length,
        )
        .map((row) => (row as { seq: number }).seq);
      before.push(...rows);
    }
    const after: number[] = [];
    for (const segment of segments) {
      if (before.length + after.length >= limit) break;
      const rows = bySender(
        'SELECT seq FROM messages WHERE session_id = ? AND sender = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
      )
        .all(
          segment.session,
          agent,
          Math.max(segment.after, around),
          segment.upTo,
          limit - before.length - after.length,
        )
        .map((row) => (row as { seq: number }).seq);
      after.push(...rows);
    }
    const seqs = [...before.reverse(), ...after];
    const first = seqs[0];
    let firstIndex = 0;
    if (first !== undefined) {
      for (const segment of segments) {
        firstIndex += (
          bySender(
            'SELECT count(*) AS n FROM messages WHERE session_id = ? AND sender = ? AND seq > ? AND seq <= ?',
          ).get(segment.session, agent, segment.after, Math.min(segment.upTo, first - 1)) as { n: number }
        ).n;
      }
    }
    return { agents, agent, firstIndex, seqs };
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
    // A seq cursor narrows each segment's seq range: one range on the index, so SQLite starts
    // the scan at the cursor (a second bound on seq made it walk from the segment's end).
    let lowest = 0;
    let highest = Number.MAX_SAFE_INTEGER;
    const where = [...filters];
    const cursorParams: number[] = [];
    if (query.after) {
      if ('t' in query.after) {
        where.push('t > ?');
        cursorParams.push(query.after.t);
      } else lowest = query.after.seq;
    }
    if (query.before) {
      if ('t' in query.before) {
        where.push('t < ?');
        cursorParams.push(query.before.t);
      } else highest = query.before.seq - 1;
    }
    const backwards = query.before !== undefined || (cursor === undefined && query.from === 'end');
    const order = byTime ? (backwards ? 't DESC, seq DESC' : 't, seq') : backwards ? 'seq DESC' : 'seq';
    const compare = (a: MessageRow, b: MessageRow) =>
      (byTime ? a.t - b.t || a.seq - b.seq : a.seq - b.seq) * (backwards ? -1 : 1);
    const segments = this.within(sessionId, lowest, highest);
    // Segments hold disjoint, increasing seq ranges: by seq, the nearest ones fill the page first.
    const visiting = backwards ? [...segments].reverse() : segments;
    let rows: MessageRow[] = [];
    for (const segment of visiting) {
      if (!byTime && rows.length > limit) break;
      const found = messageRows(
        this.cache
          .get(
            `SELECT ${MESSAGE_ROW_COLUMNS} FROM messages WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
          )
          .raw()
          .all(segment.session, segment.after, segment.upTo, ...params, ...cursorParams, limit + 1),
      );
      rows = rows.concat(found);
    }
    rows.sort(compare);
    const more = rows.length > limit;
    const kept = rows.slice(0, limit);
    if (backwards) kept.reverse();
    const items = kept.map(toStoredMessage);
    const first = items[0];
    const last = items[items.length - 1];
    const all = this.within(sessionId);
    const exists = (comparison: '<' | '>', item: StoredMessage): boolean => {
      if (byTime) {
        const statement = this.cache.get(
          `SELECT 1 FROM messages WHERE ${filters.join(' AND ')} AND (t, seq) ${comparison} (?, ?) LIMIT 1`,
        );
        return all.some(
          (segment) =>
            statement.get(segment.session, segment.after, segment.upTo, ...params, item.t, item.seq) !==
            undefined,
        );
      }
      const statement = this.cache.get(`SELECT 1 FROM messages WHERE ${filters.join(' AND ')} LIMIT 1`);
      const range =
        comparison === '<'
          ? this.within(sessionId, 0, item.seq - 1)
          : this.within(sessionId, item.seq, Number.MAX_SAFE_INTEGER);
      return range.some(
        (segment) => statement.get(segment.session, segment.after, segment.upTo, ...params) !== undefined,
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
    for (const { segment, skip } of segmentsFromMessage(this.cache, this.within(sessionId), position - 1)) {
      const row = this.cache
        .get(
          'SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1 OFFSET ?',
        )
        .get(segment.session, segment.after, segment.upTo, skip) as MessageRow | undefined;
      if (row) return toStoredMessage(row);
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
