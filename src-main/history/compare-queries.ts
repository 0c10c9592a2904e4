import type { AgentFigures } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { clip, segmentsFromMessage, type Lineage, type LineageSegment } from './lineage';
import { StatementCache } from './statement-cache';
import { EventDecoder, SID_OF, STORED_EVENT_COLUMNS, type StoredEventRow } from './event-codec';
import { toStoredMessage, type MessageRow, type StoredMessage } from './rows';

/** How the last `session.stopped` of a session put it. */
export interface LastStop {
  status: string;
  stopReason: string;
  detail: string | null;
}

/** What two sessions share by reference: the seqs up to which their histories are the same rows. */
export interface SharedHistory {
  /** Events with `seq <= sharedSeq` are the same stored rows in both (0 when unrelated). */
  sharedSeq: number;
  /** The deepest session whose rows both read (one of them, or a common ancestor); null when none. */
  ancestorId: string | null;
}

/** Per-agent figures, the last stop and positional slices of messages, through forks' prefixes. */
export class CompareQueries {
  private readonly cache: StatementCache;
  private readonly decoder: EventDecoder;

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
    this.decoder = new EventDecoder(db);
  }

  /** Messages at positions `offset + 1 .. offset + limit` (1 = the first, as `show` counts). */
  slice(sessionId: string, offset: number, limit: number): StoredMessage[] {
    const rows: MessageRow[] = [];
    for (const { segment, skip } of segmentsFromMessage(
      this.cache,
      this.lineage.segments(sessionId),
      offset,
    )) {
      if (rows.length >= limit) break;
      rows.push(
        ...(this.cache
          .get(
            'SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ? OFFSET ?',
          )
          .all(segment.session, segment.after, segment.upTo, limit - rows.length, skip) as MessageRow[]),
      );
    }
    return rows.map(toStoredMessage);
  }

  /**
   * Per sender: messages (dropped ones aside), their tokens, the time they took to arrive (start
   * to end), the tool calls they asked for; and errors recorded per agent. Read from the message
   * rows and the error events' index, never the whole event log.
   */
  agentFigures(sessionId: string): Map<string, AgentFigures> {
    const figures = new Map<string, AgentFigures>();
    const of = (name: string): AgentFigures => {
      let entry = figures.get(name);
      if (!entry) {
        entry = { messages: 0, tokens: 0, timeMs: 0, toolCalls: 0, errors: 0 };
        figures.set(name, entry);
      }
      return entry;
    };
    for (const segment of this.lineage.segments(sessionId)) {
      const range = [segment.session, segment.after, segment.upTo] as const;
      // Rows stored before ended_t existed read their end from their completion event.
      const senders = this.cache
        .get(
          `SELECT sender AS name, count(*) AS messages,
             coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) AS tokens,
             coalesce(sum(max(0, coalesce(ended_t,
               (SELECT e.t FROM event_log e WHERE e.sid = m.sid AND e.seq = m.seq), t) - t)), 0) AS timeMs,
             coalesce(sum(CASE WHEN tool_calls IS NULL THEN 0 ELSE json_array_length(tool_calls) END), 0) AS toolCalls
           FROM message_rows m WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? AND dropped_reason IS NULL GROUP BY sender`,
        )
        .all(...range) as Array<{
        name: string;
        messages: number;
        tokens: number;
        timeMs: number;
        toolCalls: number;
      }>;
      for (const sender of senders) {
        const entry = of(sender.name);
        entry.messages += sender.messages;
        entry.tokens += sender.tokens;
        entry.timeMs += sender.timeMs;
        entry.toolCalls += sender.toolCalls;
      }
      // Without table statistics SQLite would walk the seq range of the whole log instead.
      const errors = this.cache
        .get(
          `SELECT agent, count(*) AS n FROM event_log INDEXED BY event_log_errors WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? AND kind = 'error'
           GROUP BY agent`,
        )
        .all(...range) as Array<{ agent: string | null; n: number }>;
      for (const row of errors) of(row.agent ?? '(session)').errors += row.n;
    }
    for (const entry of figures.values()) entry.timeMs = Math.round(entry.timeMs);
    return figures;
  }

  /** Messages along each (from, to, kind) edge, dropped ones aside; handoffs are their own kind. */
  edgeCounts(
    sessionId: string,
  ): Map<string, { from: string; to: string; kind: 'message' | 'handoff'; count: number }> {
    const edges = new Map<string, { from: string; to: string; kind: 'message' | 'handoff'; count: number }>();
    for (const segment of this.lineage.segments(sessionId)) {
      const rows = this.cache
        .get(
          `SELECT sender AS "from", receiver AS "to", CASE WHEN kind = 'handoff' THEN 'handoff' ELSE 'message' END AS kind,
             count(*) AS count FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? AND dropped_reason IS NULL
           GROUP BY 1, 2, 3`,
        )
        .all(segment.session, segment.after, segment.upTo) as Array<{
        from: string;
        to: string;
        kind: 'message' | 'handoff';
        count: number;
      }>;
      for (const row of rows) {
        const key = JSON.stringify([row.from, row.to, row.kind]);
        const known = edges.get(key);
        if (known) known.count += row.count;
        else edges.set(key, { ...row });
      }
    }
    return edges;
  }

  /**
   * How many messages from position `from` (0-based) on are the same in both sessions (same
   * sender, receiver, kind and text), reading only those four columns, a chunk at a time.
   */
  samePairsFrom(a: string, b: string, from: number): number {
    const left = this.rows(a, from);
    const right = this.rows(b, from);
    let same = 0;
    for (;;) {
      const x = left.next();
      const y = right.next();
      if (x.done || y.done) return same;
      const [sx, rx, kx, cx] = x.value;
      const [sy, ry, ky, cy] = y.value;
      if (sx !== sy || rx !== ry || kx !== ky || cx !== cy) return same;
      same += 1;
    }
  }

  /** Sender, receiver, kind and text of every message from position `from` on, in order. */
  private *rows(sessionId: string, from: number): Generator<[string, string, string, string]> {
    const chunk = 500;
    for (const start of segmentsFromMessage(this.cache, this.lineage.segments(sessionId), from)) {
      const { segment } = start;
      let skip = start.skip;
      let after = segment.after;
      for (;;) {
        const rows = this.cache
          .get(
            `SELECT seq, sender, receiver, kind, content FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?
             ORDER BY seq LIMIT ? OFFSET ?`,
          )
          .raw()
          .all(segment.session, after, segment.upTo, chunk, skip) as Array<
          [number, string, string, string, string]
        >;
        skip = 0;
        for (const [, sender, receiver, kind, content] of rows) yield [sender, receiver, kind, content];
        if (rows.length < chunk) break;
        after = rows[rows.length - 1]?.[0] ?? segment.upTo;
      }
    }
  }

  /** The last `session.stopped` of the session's history, or null before any. */
  lastStop(sessionId: string): LastStop | null {
    for (const segment of [...this.lineage.segments(sessionId)].reverse()) {
      const row = this.cache
        .get(
          `SELECT ${STORED_EVENT_COLUMNS} FROM event_log WHERE sid = ${SID_OF} AND seq > ? AND seq <= ?
           AND kind = 'session.stopped' ORDER BY seq DESC LIMIT 1`,
        )
        .get(segment.session, segment.after, segment.upTo) as StoredEventRow | undefined;
      if (!row) continue;
      const [stop] = this.decoder.decode([row], sessionId);
      if (stop?.kind !== 'session.stopped') continue;
      const payload = stop.payload;
      return { status: payload.status, stopReason: payload.stopReason, detail: payload.detail ?? null };
    }
    return null;
  }

  /** What two sessions' histories share as the very same stored rows (see SharedHistory). */
  shared(a: string, b: string): SharedHistory {
    const left = this.lineage.segments(a);
    const right = this.lineage.segments(b);
    let sharedSeq = 0;
    let ancestorId: string | null = null;
    for (let index = 0; index < Math.min(left.length, right.length); index++) {
      const x = left[index] as LineageSegment;
      const y = right[index] as LineageSegment;
      if (x.session !== y.session || x.after !== y.after) break;
      sharedSeq = Math.min(x.upTo, y.upTo);
      ancestorId = x.session;
      if (x.upTo !== y.upTo) break;
    }
    if (a === b) return { sharedSeq: Number.MAX_SAFE_INTEGER, ancestorId: a };
    return { sharedSeq, ancestorId };
  }

  /** Messages with `seq <= upTo` (through the prefix). */
  countUpTo(sessionId: string, upTo: number): number {
    let total = 0;
    for (const segment of this.lineage.segments(sessionId)) {
      const part = clip(segment, 0, upTo);
      if (part === null) continue;
      total += (
        this.cache
          .get('SELECT count(*) AS n FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?')
          .get(part.session, part.after, part.upTo) as { n: number }
      ).n;
    }
    return total;
  }
}
