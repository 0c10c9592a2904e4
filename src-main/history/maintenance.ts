import { LIVE_SQL } from './live-sql';
import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';
import { writeTransaction } from './write-turns';

const DAY_MS = 86_400_000;

export interface MessageCapCheck {
  reached: boolean;
  count: number;
  max: number | null;
  /** The stop reason to end the run with when `reached`; null otherwise. */
  stopReason: string | null;
}

/** `max` null means no cap (the default). */
export function messageCapCheck(count: number, max: number | null): MessageCapCheck {
  const reached = max !== null && count >= max;
  return {
    reached,
    count,
    max,
    stopReason: reached ? `Reached the limit of ${max} messages per session (set in Settings).` : null,
  };
}

/** A session retention would delete. */
export interface RetentionCandidate {
  id: string;
  title: string;
  /** When it entered this store (epoch ms). */
  storedAt: number;
}

/**
 * The sessions that entered this store before `now - days` and retention may delete: not live
 * (running, paused and waiting sessions are kept), not a seeded sample, and with no fork left
 * (forks read their history through them; an old family goes leaf by leaf, so a fork that goes
 * too frees its parent). Forks before their parents, the order they are deleted in. `now` is
 * epoch ms.
 */
export function retentionCandidates(db: SqliteDatabase, days: number, now: number): RetentionCandidate[] {
  if (!Number.isFinite(days) || days <= 0) return [];
  const cutoff = now - days * DAY_MS;
  const rows = db
    .prepare(
      `SELECT id, title, stored_at AS storedAt FROM sessions
        WHERE stored_at < ? AND sample = 0 AND status NOT IN (${LIVE_SQL})
        ORDER BY stored_at DESC, created_at DESC`,
    )
    .all(cutoff) as RetentionCandidate[];
  const forksOf = db.prepare('SELECT id FROM sessions WHERE parent_session_id = ?').pluck();
  const going = new Map<string, RetentionCandidate>();
  // Passes until nothing more frees up: a parent goes after every fork it has, whatever the order.
  for (let added = true; added;) {
    added = false;
    for (const row of rows) {
      if (going.has(row.id)) continue;
      const forks = forksOf.all(row.id) as string[];
      if (forks.some((fork) => !going.has(fork))) continue;
      going.set(row.id, row);
      added = true;
    }
  }
  return [...going.values()];
}

/** Deletes what retentionCandidates lists, in one transaction; returns the deleted ids. */
export function deleteOlderThan(db: SqliteDatabase, days: number, now: number): string[] {
  return writeTransaction(db, () => {
    const ids = retentionCandidates(db, days, now).map((candidate) => candidate.id);
    for (const id of ids) deleteSessionRows(db, id);
    return ids;
  });
}

/** Marks sessions as seeded samples (by the hash of the file they came from): retention keeps them. */
export function markSamples(db: SqliteDatabase, sourceHashes: readonly string[]): number {
  if (sourceHashes.length === 0) return 0;
  const mark = db.prepare('UPDATE sessions SET sample = 1 WHERE source_hash = ? AND sample = 0');
  return writeTransaction(db, () => sourceHashes.reduce((count, hash) => count + mark.run(hash).changes, 0));
}

/** Deletes a session and everything it owns (events, messages, checkpoints, index entries). */
export function deleteSessionRows(db: SqliteDatabase, sessionId: string): void {
  writeTransaction(db, () => {
    new FtsIndex(db).removeSessionRows(sessionId);
    db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
  });
}
