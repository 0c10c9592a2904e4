import { LIVE_STATUSES } from '@shared/domain';
import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';
import { SID_OF, storedKind } from './event-codec';
import { ownerIsAlive, type OwnerRow } from './ownership';
import { writeTransaction } from './write-turns';

/** Stop reason written on sessions whose driving process ended while they were live. */
export const INTERRUPTED_REASON = 'The process running this session ended before the session did.';

export interface RecoveryReport {
  /** Ids of sessions set to interrupted. */
  sessions: string[];
  /** Messages that were streaming and are now kept as partial. */
  partialMessages: number;
}

/**
 * Marks as interrupted exactly the live sessions whose owning process is gone (see ownership.ts),
 * never one a living process still drives, whichever process calls it. Completed messages stay as
 * they are; streaming ones become partial with the text that was committed. A `session.stopped`
 * event is appended so the event log (and every replay or export of it) ends the same way.
 * `now` is epoch milliseconds (heartbeats of owners on other hosts are judged against it).
 */
export function recoverInterrupted(db: SqliteDatabase, now: number = Date.now()): RecoveryReport {
  const placeholders = LIVE_STATUSES.map(() => '?').join(', ');
  const stale = db.prepare(
    `SELECT s.id, s.created_at, o.pid, o.process_start, o.host, o.heartbeat_at FROM sessions s
     LEFT JOIN session_owners o ON o.session_id = s.id WHERE s.status IN (${placeholders})`,
  );
  const releaseOwner = db.prepare('DELETE FROM session_owners WHERE session_id = ?');
  const lastEvent = db.prepare(
    `SELECT seq, t FROM event_log WHERE sid = ${SID_OF} ORDER BY seq DESC LIMIT 1`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO event_log (sid, seq, t, kind_code, agent, msg, payload) VALUES (${SID_OF}, ?, ?, '${storedKind('session.stopped')}', NULL, NULL, ?)`,
  );
  const fts = new FtsIndex(db);
  const markPartial = db.prepare(
    `UPDATE message_rows SET state = 'partial', seq = ?, ended_t = ? WHERE sid = ${SID_OF} AND state = 'streaming'`,
  );
  const markSession = db.prepare(
    "UPDATE sessions SET status = 'interrupted', stop_reason = ?, ended_at = ?, updated_at = ? WHERE id = ?",
  );
  return writeTransaction(db, (): RecoveryReport => {
    const report: RecoveryReport = { sessions: [], partialMessages: 0 };
    const rows = stale.all(...LIVE_STATUSES) as Array<
      { id: string; created_at: number } & ({ pid: null } | OwnerRow)
    >;
    for (const row of rows) {
      if (row.pid !== null && ownerIsAlive(row as OwnerRow, now)) continue;
      const last = lastEvent.get(row.id) as { seq: number; t: number } | undefined;
      const t = last?.t ?? 0;
      const payload = { status: 'interrupted', stopReason: INTERRUPTED_REASON };
      const seq = (last?.seq ?? 0) + 1;
      insertEvent.run(row.id, seq, t, JSON.stringify(payload));
      fts.addStreamingOf(row.id);
      // Closed by the stop event, like a stop the runtime records (see Materializer.closeOpenMessages).
      report.partialMessages += markPartial.run(seq, t, row.id).changes;
      const endedAt = row.created_at + Math.round(t);
      markSession.run(INTERRUPTED_REASON, endedAt, endedAt, row.id);
      releaseOwner.run(row.id);
      report.sessions.push(row.id);
    }
    return report;
  });
}
