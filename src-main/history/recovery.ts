import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';

/** Stop reason written on sessions that were live when the process ended. */
export const INTERRUPTED_REASON = 'The app closed while this session was running.';

/** Statuses that mean a run was live: after a restart nothing can still be driving them. */
const LIVE_STATUSES = ['running', 'paused', 'waiting-for-human'] as const;

export interface RecoveryReport {
  /** Ids of sessions set to interrupted. */
  sessions: string[];
  /** Messages that were streaming and are now kept as partial. */
  partialMessages: number;
}

/**
 * Marks sessions left live by a previous process as interrupted. Completed messages stay as they
 * are; streaming ones become partial with the text that was committed. A `session.stopped` event
 * is appended so the event log (and every replay or export of it) ends the same way. Only call
 * this when no run is live in any process using the store (at app start).
 */
export function recoverInterrupted(db: SqliteDatabase): RecoveryReport {
  const placeholders = LIVE_STATUSES.map(() => '?').join(', ');
  const stale = db.prepare(`SELECT id, created_at FROM sessions WHERE status IN (${placeholders})`);
  const lastEvent = db.prepare('SELECT seq, t FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1');
  const insertEvent = db.prepare(
    "INSERT INTO events (session_id, seq, t, kind, agent, payload) VALUES (?, ?, ?, 'session.stopped', NULL, ?)",
  );
  const fts = new FtsIndex(db);
  const markPartial = db.prepare(
    "UPDATE messages SET state = 'partial' WHERE session_id = ? AND state = 'streaming'",
  );
  const markSession = db.prepare(
    "UPDATE sessions SET status = 'interrupted', stop_reason = ?, ended_at = ?, updated_at = ? WHERE id = ?",
  );
  return db.transaction((): RecoveryReport => {
    const report: RecoveryReport = { sessions: [], partialMessages: 0 };
    for (const row of stale.all(...LIVE_STATUSES) as Array<{ id: string; created_at: number }>) {
      const last = lastEvent.get(row.id) as { seq: number; t: number } | undefined;
      const t = last?.t ?? 0;
      const payload = { status: 'interrupted', stopReason: INTERRUPTED_REASON };
      insertEvent.run(row.id, (last?.seq ?? 0) + 1, t, JSON.stringify(payload));
      fts.addStreamingOf(row.id);
      report.partialMessages += markPartial.run(row.id).changes;
      const endedAt = row.created_at + Math.round(t);
      markSession.run(INTERRUPTED_REASON, endedAt, endedAt, row.id);
      report.sessions.push(row.id);
    }
    return report;
  })();
}
