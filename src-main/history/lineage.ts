import type { SqliteDatabase } from './database';
import type { StatementCache } from './statement-cache';

/**
 * A stretch of a session's event log held by one stored session: events with
 * `after < seq <= upTo` of `session`. A session that is not a fork is one segment of its own; a
 * fork is its parent's segments up to its fork point followed by its own events.
 */
export interface LineageSegment {
  session: string;
  after: number;
  upTo: number;
}

/** Forks of forks deeper than this are refused (and a longer chain is treated as corrupt). */
export const MAX_FORK_DEPTH = 200;

/**
 * Where each part of a session's history is stored. A fork shares its parent's events up to its
 * fork point by reference: reading it reads the parent's rows for that stretch (recursively),
 * then its own. A lineage never changes once written (a parent with forks cannot be deleted), so
 * answers are cached.
 */
export class Lineage {
  private readonly cache = new Map<string, LineageSegment[]>();
  private readonly parentOf;

  constructor(db: SqliteDatabase) {
    this.parentOf = db.prepare(
      'SELECT parent_session_id AS parent, fork_seq AS forkSeq FROM sessions WHERE id = ?',
    );
  }

  /** The segments of a session, oldest first; empty segments are left out. */
  segments(sessionId: string): LineageSegment[] {
    const cached = this.cache.get(sessionId);
    if (cached) return cached;
    const chain: Array<{ session: string; forkSeq: number | null }> = [];
    let current: string | null = sessionId;
    while (current !== null) {
      if (chain.length > MAX_FORK_DEPTH) break;
      const row = this.parentOf.get(current) as { parent: string | null; forkSeq: number | null } | undefined;
      const forked = row?.parent != null && row.forkSeq != null;
      chain.push({ session: current, forkSeq: forked ? (row?.forkSeq ?? null) : null });
      current = forked ? (row?.parent ?? null) : null;
    }
    let segments: LineageSegment[] = [];
    for (const link of chain.reverse()) {
      const after = link.forkSeq ?? 0;
      segments = segments
        .map((segment) => ({ ...segment, upTo: Math.min(segment.upTo, after) }))
        .filter((segment) => segment.after < segment.upTo);
      segments.push({ session: link.session, after, upTo: Number.MAX_SAFE_INTEGER });
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(sessionId, segments);
    return segments;
  }

  /** Whether a session reads through another's events. */
  isFork(sessionId: string): boolean {
    return this.segments(sessionId).length > 1;
  }

  forget(sessionId: string): void {
    this.cache.delete(sessionId);
  }
}

/** The part of `segment` within `after < seq <= upTo`, or null when they do not overlap. */
export function clip(segment: LineageSegment, after: number, upTo: number): LineageSegment | null {
  const from = Math.max(segment.after, after);
  const to = Math.min(segment.upTo, upTo);
  return from < to ? { session: segment.session, after: from, upTo: to } : null;
}

/** A segment to read messages from, and how many of its first messages to pass over. */
export interface SegmentFrom {
  segment: LineageSegment;
  skip: number;
}

/**
 * The segments from a session's message at 0-based `position` on (through a fork's ancestors):
 * segments holding only earlier messages are passed over by their counts, the first one yielded
 * carries the messages to skip inside it, later ones 0. A yielded segment may hold no message
 * (one with events only); the caller goes on to the next.
 */
export function* segmentsFromMessage(
  cache: StatementCache,
  segments: Iterable<LineageSegment>,
  position: number,
): Generator<SegmentFrom> {
  let skip = position;
  for (const segment of segments) {
    if (skip > 0) {
      const count = (
        cache
          .get('SELECT count(*) AS n FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?')
          .get(segment.session, segment.after, segment.upTo) as { n: number }
      ).n;
      if (skip >= count) {
        skip -= count;
        continue;
      }
    }
    yield { segment, skip };
    skip = 0;
  }
}
