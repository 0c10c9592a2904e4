import { BROADCAST } from '@shared/domain';
import type { AgentEdgeStats, EdgeCount } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { LIVE_SQL } from './live-sql';
import { StatementCache } from './statement-cache';

/**
 * Running graph totals of one stored session's own message rows: per sender (completed, not
 * dropped) the count, tokens and last seq, and all its messages (its turns); per receiver the
 * last seq it was addressed by name; per (sender, receiver, kind) the count and last seq.
 */
export interface EdgeTally {
  agents: Map<string, AgentEdgeStats>;
  /** Every message per sender, dropped ones included (each is a turn). */
  turns: Map<string, number>;
  receivers: Map<string, number>;
  edges: Map<string, EdgeCount>;
}

export function emptyTally(): EdgeTally {
  return { agents: new Map(), turns: new Map(), receivers: new Map(), edges: new Map() };
}

function cloneTally(tally: EdgeTally): EdgeTally {
  const copy = emptyTally();
  for (const [name, agent] of tally.agents) copy.agents.set(name, { ...agent });
  for (const [name, turns] of tally.turns) copy.turns.set(name, turns);
  for (const [name, seq] of tally.receivers) copy.receivers.set(name, seq);
  for (const [key, edge] of tally.edges) copy.edges.set(key, { ...edge });
  return copy;
}

/** One grouped row: messages along (from, to, kind), dropped or not, in a range of seqs. */
interface GroupRow {
  from: string;
  to: string;
  kind: 'message' | 'handoff';
  dropped: number;
  count: number;
  tokens: number;
  lastSeq: number;
}

/** Adds grouped rows (any order) into `tally`. */
function addRows(tally: EdgeTally, rows: readonly GroupRow[]): void {
  for (const row of rows) {
    tally.turns.set(row.from, (tally.turns.get(row.from) ?? 0) + row.count);
    if (row.dropped) continue;
    const agent = tally.agents.get(row.from);
    if (agent) {
      agent.messages += row.count;
      agent.tokens += row.tokens;
      agent.lastSeq = Math.max(agent.lastSeq, row.lastSeq);
    } else
      tally.agents.set(row.from, {
        name: row.from,
        messages: row.count,
        tokens: row.tokens,
        lastSeq: row.lastSeq,
      });
    if (row.to !== BROADCAST)
      tally.receivers.set(row.to, Math.max(tally.receivers.get(row.to) ?? 0, row.lastSeq));
    const key = JSON.stringify([row.from, row.to, row.kind]);
    const edge = tally.edges.get(key);
    if (edge) {
      edge.count += row.count;
      edge.lastSeq = Math.max(edge.lastSeq, row.lastSeq);
    } else
      tally.edges.set(key, {
        from: row.from,
        to: row.to,
        kind: row.kind,
        count: row.count,
        lastSeq: row.lastSeq,
      });
  }
}

/** Adds `part` into `into` (tallies of disjoint rows). */
export function mergeTally(into: EdgeTally, part: EdgeTally): void {
  for (const [name, turns] of part.turns) into.turns.set(name, (into.turns.get(name) ?? 0) + turns);
  for (const [name, agent] of part.agents) {
    const known = into.agents.get(name);
    if (!known) into.agents.set(name, { ...agent });
    else {
      known.messages += agent.messages;
      known.tokens += agent.tokens;
      known.lastSeq = Math.max(known.lastSeq, agent.lastSeq);
    }
  }
  for (const [name, seq] of part.receivers)
    into.receivers.set(name, Math.max(into.receivers.get(name) ?? 0, seq));
  for (const [key, edge] of part.edges) {
    const known = into.edges.get(key);
    if (!known) into.edges.set(key, { ...edge });
    else {
      known.count += edge.count;
      known.lastSeq = Math.max(known.lastSeq, edge.lastSeq);
    }
  }
}

/** Snapshots kept per session at most; past it the bucket doubles and they are rebuilt. */
const MAX_SNAPSHOTS = 1024;
/** The smallest bucket, in seqs. */
const MIN_BUCKET = 1024;
/** Sessions whose snapshots are kept (least recently used dropped first). */
const SESSIONS_KEPT = 8;

interface SessionSnapshots {
  bucket: number;
  stable?: number;
  complete?: number;
  /** snapshots[k]: the tally of the rows with seq < (k + 1) * bucket. */
  snapshots: EdgeTally[];
}

const GROUPED = `SELECT sender AS "from", receiver AS "to",
    CASE WHEN kind = 'handoff' THEN 'handoff' ELSE 'message' END AS kind,
    dropped_reason IS NOT NULL AS dropped, count(*) AS count,
    coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) AS tokens, max(seq) AS lastSeq
  FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?`;

/**
 * Graph totals of a session's own message rows at any seq without reading them all: prefix
 * tallies at every bucket boundary, built from one grouped pass (in SQL) the first time a session
 * is asked about and extended as it grows, plus a grouped read of the rows since the nearest
 * boundary. Only rows that can no longer change are in a snapshot: those before the session's
 * first message still streaming (a streaming row moves to its completion seq when it completes).
 */
export class EdgeTallies {
  private readonly cache: StatementCache;
  private readonly kept = new Map<string, SessionSnapshots>();

  constructor(
    db: SqliteDatabase,
    /** The smallest bucket, in seqs (small only in tests). */
    private readonly minBucket = MIN_BUCKET,
  ) {
    this.cache = new StatementCache(db);
  }

  /**
   * Builds at most `buckets` more snapshots of `session` towards `upTo`; true once they reach it
   * (or the session's stable rows). Lets a caller build a long session's snapshots in slices,
   * giving other work a turn between them, before asking `tallyAt`.
   */
  prepare(session: string, upTo: number, buckets: number): boolean {
    const entry = this.entryOf(session);
    const wanted = Math.min(entry.complete, Math.floor((Math.min(upTo, entry.stable) + 1) / entry.bucket));
    if (wanted > entry.snapshots.length)
      this.extend(session, entry, Math.min(wanted, entry.snapshots.length + buckets));
    return entry.snapshots.length >= wanted;
  }

  /** The tally of `session`'s own rows with seq <= `upTo`. */
  tallyAt(session: string, upTo: number): EdgeTally {
    const entry = this.snapshotsOf(session);
    const index = Math.min(Math.floor((upTo + 1) / entry.bucket), entry.snapshots.length) - 1;
    const tally = index >= 0 ? cloneTally(entry.snapshots[index] as EdgeTally) : emptyTally();
    const from = (index + 1) * entry.bucket - 1;
    addRows(tally, this.grouped(session, Math.max(0, from), upTo));
    return tally;
  }

  private grouped(session: string, after: number, upTo: number): GroupRow[] {
    if (upTo <= after) return [];
    return this.cache.get(`${GROUPED} GROUP BY 1, 2, 3, 4`).all(session, after, upTo) as GroupRow[];
  }

  /** Snapshots up to the session's stable rows, extended (or rebuilt coarser) as needed. */
  private snapshotsOf(session: string): SessionSnapshots {
    const entry = this.entryOf(session);
    if (entry.complete > entry.snapshots.length) this.extend(session, entry, entry.complete);
    return entry;
  }

  /**
   * The session's kept snapshots (most recently used), with how many buckets its stable rows
   * fill now; started again with a coarser bucket when they would be too many.
   */
  private entryOf(session: string): SessionSnapshots & { stable: number; complete: number } {
    const stable = this.stableUpTo(session);
    let entry = this.kept.get(session);
    this.kept.delete(session);
    if (!entry || Math.floor((stable + 1) / entry.bucket) > MAX_SNAPSHOTS) {
      let bucket = this.minBucket;
      while (Math.floor((stable + 1) / bucket) > MAX_SNAPSHOTS) bucket *= 2;
      entry = { bucket, snapshots: [] };
    }
    this.kept.set(session, entry);
    while (this.kept.size > SESSIONS_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    return Object.assign(entry, { stable, complete: Math.floor((stable + 1) / entry.bucket) });
  }

  /** Adds snapshots up to `complete` buckets with one grouped pass over the rows in between. */
  private extend(session: string, entry: SessionSnapshots, complete: number): void {
    const { bucket, snapshots } = entry;
    const after = snapshots.length * bucket - 1;
    const upTo = complete * bucket - 1;
    const rows = this.cache
      .get(
        `${GROUPED.replace('SELECT ', 'SELECT seq / CAST(? AS INTEGER) AS bucket, ')} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1`,
      )
      .all(bucket, session, Math.max(0, after), upTo) as Array<GroupRow & { bucket: number }>;
    let running =
      snapshots.length > 0 ? cloneTally(snapshots[snapshots.length - 1] as EdgeTally) : emptyTally();
    let at = 0;
    for (let k = snapshots.length; k < complete; k++) {
      // Bucket k holds the rows with k * bucket <= seq < (k + 1) * bucket.
      const part: GroupRow[] = [];
      while (at < rows.length && (rows[at] as { bucket: number }).bucket <= k)
        part.push(rows[at++] as GroupRow);
      if (part.length > 0) {
        running = cloneTally(running);
        addRows(running, part);
      }
      snapshots.push(running);
    }
  }

  /**
   * The last seq below which the session's rows no longer change: all of them once the session
   * is not live (stopping closes every streaming row), else those before its first streaming row.
   */
  private stableUpTo(session: string): number {
    const { live, last } = this.cache
      .get(
        `SELECT (SELECT status IN (${LIVE_SQL}) FROM sessions WHERE id = ?) AS live,
           (SELECT max(seq) FROM messages WHERE session_id = ?) AS last`,
      )
      .get(session, session) as { live: number | null; last: number | null };
    if (!live) return last ?? 0;
    const streaming = this.cache
      .get(`SELECT min(seq) AS seq FROM messages WHERE session_id = ? AND state = 'streaming'`)
      .get(session) as { seq: number | null };
    return Math.max(0, streaming.seq !== null ? streaming.seq - 1 : (last ?? 0));
  }
}
