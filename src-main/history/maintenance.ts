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

/**
 * Deletes sessions created before `now - days` that are no longer live (running, paused and
 * waiting sessions are kept) and have no forks left (forks read their history through them; an
 * old family goes leaf by leaf). Returns the deleted ids. `now` is epoch milliseconds.
 */
export function deleteOlderThan(db: SqliteDatabase, days: number, now: number): string[] {
  if (!Number.isFinite(days) || days <= 0) return [];
  const cutoff = now - days * DAY_MS;
  return writeTransaction(db, () => {
    const rows = db
      .prepare(
        `SELECT id FROM sessions WHERE created_at < ? AND status NOT IN (${LIVE_SQL})
         ORDER BY created_at DESC`,
      )
      .all(cutoff) as Array<{ id: string }>;
    const hasForks = db.prepare('SELECT 1 FROM sessions WHERE parent_session_id = ? LIMIT 1');
    const deleted: string[] = [];
    // Newest first, so a fork goes before the parent it reads through.
    for (const row of rows) {
      if (hasForks.get(row.id) !== undefined) continue;
      deleteSessionRows(db, row.id);
      deleted.push(row.id);
    }
    return deleted;
  });
}

/** Deletes a session and everything it owns (events, messages, checkpoints, index entries). */
export function deleteSessionRows(db: SqliteDatabase, sessionId: string): void {
  writeTransaction(db, () => {
    new FtsIndex(db).removeSessionRows(sessionId);
    db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
  });
}
