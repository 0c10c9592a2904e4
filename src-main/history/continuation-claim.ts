import type { SqliteDatabase } from './database';
import { LIVE_SQL } from './live-sql';
import { OwnerRecords } from './ownership';
import { writeTransaction } from './write-turns';

/**
 * Claims a stored session that is not running for a continuation by this process, in one
 * transaction: it becomes running, owned by this process, so a second claim (another process, or
 * a second call in this one) is refused until the continuation ends. Returns the undo (the
 * status, stop reason and end it had, and no owner) for a continuation that could not start, or
 * null when the session is live already. The caller flushes buffered writes first.
 */
export function claimForContinuation(db: SqliteDatabase, id: string, now: number): (() => void) | null {
  const before = db.prepare('SELECT status, stop_reason, ended_at FROM sessions WHERE id = ?').get(id) as {
    status: string;
    stop_reason: string | null;
    ended_at: number | null;
  };
  const claimed = writeTransaction(db, () => {
    const result = db
      .prepare(`UPDATE sessions SET status = 'running' WHERE id = ? AND status NOT IN (${LIVE_SQL})`)
      .run(id);
    if (result.changes === 0) return false;
    new OwnerRecords(db).claim(id, now);
    return true;
  });
  if (!claimed) return null;
  return () => {
    writeTransaction(db, () => {
      db.prepare(
        "UPDATE sessions SET status = ?, stop_reason = ?, ended_at = ? WHERE id = ? AND status = 'running'",
      ).run(before.status, before.stop_reason, before.ended_at, id);
      new OwnerRecords(db).release(id);
    });
  };
}
