import { LIVE_STATUSES } from '@shared/domain';
import type { SqliteDatabase } from './database';
import { FtsIndex } from './fts-index';
import { FtsMerging } from './fts-merging';
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
    `SELECT s.id, o.pid, o.process_start, o.host, o.heartbeat_at FROM sessions s
     LEFT JOIN session_owners o ON o.session_id = s.id WHERE s.status IN (${placeholders})`,
  );
  const importing = db.prepare(
    `SELECT 1 FROM sessions WHERE read_only = 1 AND status IN (${placeholders}) LIMIT 1`,
  );
  const ending = endingStatements(db);
  const merging = new FtsMerging(db);
  return writeTransaction(db, (): RecoveryReport => {
    const report: RecoveryReport = { sessions: [], partialMessages: 0 };
    const rows = stale.all(...LIVE_STATUSES) as Array<{ id: string } & ({ pid: null } | OwnerRow)>;
    for (const row of rows) {
      if (row.pid !== null && ownerIsAlive(row as OwnerRow, now)) continue;
      report.partialMessages += endSession(ending, row.id, 'interrupted', INTERRUPTED_REASON);
      report.sessions.push(row.id);
    }
    // An import's writing thread that ended with its process left the index's merging to itself
    // (fts-merging.ts); with no import written any more, commits merge again.
    if (!merging.automatic() && importing.get(...LIVE_STATUSES) === undefined) merging.resume();
    return report;
  });
}

/**
 * Ends a live session as of its last committed event, whatever its owner: appends the
 * `session.stopped` with `status` and `stopReason`, keeps streaming messages as partial, and
 * releases the owner. Does nothing to a session that is not live (or not there). Used when the
 * process driving it can no longer write its events (see LiveWriter: a full disk).
 */
export function endSessionAsOf(
  db: SqliteDatabase,
  sessionId: string,
  status: 'failed' | 'interrupted',
  stopReason: string,
): void {
  const placeholders = LIVE_STATUSES.map(() => '?').join(', ');
  const live = db.prepare(`SELECT 1 FROM sessions WHERE id = ? AND status IN (${placeholders})`);
  const ending = endingStatements(db);
  writeTransaction(db, () => {
    if (live.get(sessionId, ...LIVE_STATUSES) !== undefined)
      endSession(ending, sessionId, status, stopReason);
  });
}

function endingStatements(db: SqliteDatabase) {
  return {
    created: db.prepare('SELECT created_at FROM sessions WHERE id = ?'),
    releaseOwner: db.prepare('DELETE FROM session_owners WHERE session_id = ?'),
    lastEvent: db.prepare(`SELECT seq, t FROM event_log WHERE sid = ${SID_OF} ORDER BY seq DESC LIMIT 1`),
    insertEvent: db.prepare(
      `INSERT INTO event_log (sid, seq, t, kind_code, agent, msg, payload) VALUES (${SID_OF}, ?, ?, '${storedKind('session.stopped')}', NULL, NULL, ?)`,
    ),
    fts: new FtsIndex(db),
    // Closed by the stop event, like a stop the runtime records (see Materializer.closeOpenMessages).
    markPartial: db.prepare(
      `UPDATE message_rows SET state = 'partial', seq = ?, ended_t = ? WHERE sid = ${SID_OF} AND state = 'streaming'`,
    ),
    markSession: db.prepare(
      'UPDATE sessions SET status = ?, stop_reason = ?, ended_at = ?, updated_at = ? WHERE id = ?',
    ),
  };
}

/** Writes a live session's end (inside the caller's transaction); returns its partial messages. */
function endSession(
  ending: ReturnType<typeof endingStatements>,
  id: string,
  status: 'failed' | 'interrupted',
  stopReason: string,
): number {
  const createdAt = (ending.created.get(id) as { created_at: number }).created_at;
  const last = ending.lastEvent.get(id) as { seq: number; t: number } | undefined;
  const t = last?.t ?? 0;
  const seq = (last?.seq ?? 0) + 1;
  ending.insertEvent.run(id, seq, t, JSON.stringify({ status, stopReason }));
  ending.fts.addStreamingOf(id);
  const partial = ending.markPartial.run(seq, t, id).changes;
  const endedAt = createdAt + Math.round(t);
  ending.markSession.run(status, stopReason, endedAt, endedAt, id);
  ending.releaseOwner.run(id);
  return partial;
}
