import type { AgentUsage, EdgeUsage, SessionUsage } from '@shared/contract';
import { addFigures, emptyFigures, type UsageFigures } from '@shared/domain';
import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';
import { clip, type Lineage, type LineageSegment } from './lineage';
import { StatementCache } from './statement-cache';

/** The sums every usage query selects, over message rows `m` that carry usage. */
const FIGURES = `count(*) AS calls, coalesce(sum(m.prompt_tokens), 0) AS inputTokens,
  coalesce(sum(m.completion_tokens), 0) AS outputTokens, coalesce(sum(m.cached_tokens), 0) AS cachedTokens,
  coalesce(sum(m.reasoning_tokens), 0) AS reasoningTokens, coalesce(sum(m.cost), 0) AS cost,
  count(CASE WHEN m.cost IS NULL AND coalesce(m.prompt_tokens, 0) + coalesce(m.completion_tokens, 0) > 0 THEN 1 END)
    AS unpricedCalls,
  coalesce(sum(m.duration_ms), 0) AS busyMs`;

/** Rows of a segment that carry usage (a model call's), by the seq index. */
const CALLS = `FROM message_rows m WHERE m.sid = ${SID_OF} AND m.seq > ? AND m.seq <= ?
  AND (m.prompt_tokens IS NOT NULL OR m.completion_tokens IS NOT NULL)`;

type FigureRow = UsageFigures & { name: string };
type EdgeRow = UsageFigures & { source: string | null; target: string };

const figuresOf = (row: UsageFigures): UsageFigures => ({
  calls: row.calls,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cachedTokens: row.cachedTokens,
  reasoningTokens: row.reasoningTokens,
  cost: row.cost,
  unpricedCalls: row.unpricedCalls,
  busyMs: row.busyMs,
});

/**
 * Tokens, cost and busy time of a session's model calls, from the message rows (migration 13):
 * one grouped read per lineage segment by sender, and one by the sender of the message each call
 * answered (its `parent_id`, looked up in the session's lineage), which is the edge that
 * triggered it. A call whose message answers nothing is on the edge from `user`.
 */
export class UsageQueries {
  private readonly cache: StatementCache;

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  usage(sessionId: string, seq = Number.MAX_SAFE_INTEGER): SessionUsage {
    const segments = this.lineage
      .segments(sessionId)
      .map((segment) => clip(segment, 0, seq))
      .filter((segment): segment is LineageSegment => segment !== null);
    const total = emptyFigures();
    const agents = new Map<string, UsageFigures>();
    const edges = new Map<string, EdgeUsage>();
    // A parent is looked up in every session of the lineage (a fork answers its parent's messages).
    const sessions = [...new Set(segments.map((segment) => segment.session))];
    const inLineage = sessions.map(() => '?').join(', ');
    for (const segment of segments) {
      const range = [segment.session, segment.after, segment.upTo] as const;
      const byAgent = this.cache
        .get(`SELECT m.sender AS name, ${FIGURES} ${CALLS} GROUP BY m.sender`)
        .all(...range) as FigureRow[];
      for (const row of byAgent) {
        const figures = figuresOf(row);
        addFigures(total, figures);
        const known = agents.get(row.name);
        if (known) addFigures(known, figures);
        else agents.set(row.name, figures);
      }
      const byEdge = this.cache
        .get(
          `SELECT (SELECT p.sender FROM message_rows p WHERE p.sid IN
               (SELECT sid FROM sessions WHERE id IN (${inLineage})) AND p.id = m.parent_id LIMIT 1) AS source,
             m.sender AS target, ${FIGURES} ${CALLS} GROUP BY source, target`,
        )
        .all(...sessions, ...range) as EdgeRow[];
      for (const row of byEdge) {
        const from = row.source ?? 'user';
        const key = `${from}\u0000${row.target}`;
        const known = edges.get(key);
        if (known) addFigures(known.figures, figuresOf(row));
        else edges.set(key, { from, to: row.target, figures: figuresOf(row) });
      }
    }
    const own = this.cache
      .get(`SELECT coalesce(max(seq), 0) AS n FROM event_log WHERE sid = ${SID_OF}`)
      .get(sessionId) as { n: number };
    return {
      seq: Math.min(seq, own.n),
      total,
      agents: [...agents].map(([name, figures]): AgentUsage => ({ name, figures })),
      edges: [...edges.values()],
    };
  }
}
