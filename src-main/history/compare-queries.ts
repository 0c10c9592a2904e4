import type { AgentFigures } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { clip, type Lineage, type LineageSegment } from './lineage';
import { StatementCache } from './statement-cache';
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

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  /** Messages at positions `offset + 1 .. offset + limit` (1 = the first, as `show` counts). */
  slice(sessionId: string, offset: number, limit: number): StoredMessage[] {
    const rows: MessageRow[] = [];
    let skip = offset;
    for (const segment of this.lineage.segments(sessionId)) {
      if (rows.length >= limit) break;
      const range = [segment.session, segment.after, segment.upTo] as const;
      if (skip > 0) {
        const count = (
          this.cache
            .get('SELECT count(*) AS n FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?')
            .get(...range) as { n: number }
        ).n;
        if (skip >= count) {
          skip -= count;
          continue;
        }
      }
      rows.push(
        ...(this.cache
          .get(
            'SELECT * FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ? OFFSET ?',
          )
          .all(...range, limit - rows.length, skip) as MessageRow[]),
      );
      skip = 0;
    }
    return rows.map(toStoredMessage);
  }

  /**
   * Per sender: messages (dropped ones aside), their tokens and the time they took to arrive
   * (start to completion), tool calls asked for and errors recorded.
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
      const senders = this.cache
        .get(
          `SELECT m.sender AS name, count(*) AS messages,
             coalesce(sum(coalesce(m.prompt_tokens, 0) + coalesce(m.completion_tokens, 0)), 0) AS tokens,
             coalesce(sum(max(0, coalesce(e.t, m.t) - m.t)), 0) AS timeMs
           FROM messages m LEFT JOIN events e ON e.session_id = m.session_id AND e.seq = m.seq
           WHERE m.session_id = ? AND m.seq > ? AND m.seq <= ? AND m.dropped_reason IS NULL GROUP BY m.sender`,
        )
        .all(...range) as Array<{ name: string; messages: number; tokens: number; timeMs: number }>;
      for (const sender of senders) {
        const entry = of(sender.name);
        entry.messages += sender.messages;
        entry.tokens += sender.tokens;
        entry.timeMs += sender.timeMs;
      }
      const counted = this.cache
        .get(
          `SELECT agent, kind, count(*) AS n FROM events WHERE session_id = ? AND seq > ? AND seq <= ?
             AND kind IN ('tool.requested', 'error') GROUP BY agent, kind`,
        )
        .all(...range) as Array<{ agent: string | null; kind: string; n: number }>;
      for (const row of counted) {
        const entry = of(row.agent ?? '(session)');
        if (row.kind === 'error') entry.errors += row.n;
        else entry.toolCalls += row.n;
      }
    }
    for (const entry of figures.values()) entry.timeMs = Math.round(entry.timeMs);
    return figures;
  }

  /** The last `session.stopped` of the session's history, or null before any. */
  lastStop(sessionId: string): LastStop | null {
    for (const segment of [...this.lineage.segments(sessionId)].reverse()) {
      const row = this.cache
        .get(
          `SELECT payload FROM events WHERE session_id = ? AND seq > ? AND seq <= ? AND kind = 'session.stopped'
           ORDER BY seq DESC LIMIT 1`,
        )
        .get(segment.session, segment.after, segment.upTo) as { payload: string } | undefined;
      if (!row) continue;
      const payload = JSON.parse(row.payload) as { status: string; stopReason: string; detail?: string };
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
