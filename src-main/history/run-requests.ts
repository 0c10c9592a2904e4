import type { SessionStatus } from '@shared/domain';
import type { SqliteDatabase } from './database';
import { currentProcess, ownerIsAlive, type OwnerRow, type ProcessIdentity } from './ownership';
import { inWriteTurn } from './write-turns';

/** What a process may ask of a run another process drives. */
export type RunRequestKind = 'pause' | 'resume' | 'step' | 'stop' | 'answer';

/** A request not yet handled (see migration 12). */
export interface OpenRunRequest {
  id: number;
  sessionId: string;
  kind: RunRequestKind;
  /** For an answer: the human-input request and the person's text. */
  answer: { requestId: string; text: string } | null;
}

/** How the owning process handled a request: the run's status after it, or why not. */
export type RunRequestOutcome =
  { ok: true; status: SessionStatus } | { ok: false; code: string; message: string };

/** Who drives a live session, and whether that process still runs. */
export interface SessionOwner extends OwnerRow {
  alive: boolean;
  /** This process. */
  self: boolean;
}

/**
 * The `run_requests` table: requests to runs carried through the shared store between the
 * processes of one data folder. Writes take the store's write turn, so an import writing on its
 * thread does not hold them back.
 */
export class RunRequests {
  private readonly insert;
  private readonly selectOpen;
  private readonly markHandled;
  private readonly selectOutcome;
  private readonly withdrawOpen;
  private readonly removeOne;
  private readonly removeHandledBefore;
  private readonly selectOwner;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare(
      'INSERT INTO run_requests (session_id, kind, payload, created_at) VALUES (?, ?, ?, ?)',
    );
    this.selectOpen = db.prepare(
      'SELECT id, session_id, kind, payload FROM run_requests WHERE handled_at IS NULL ORDER BY id',
    );
    this.markHandled = db.prepare(
      'UPDATE run_requests SET handled_at = ?, outcome = ? WHERE id = ? AND handled_at IS NULL',
    );
    this.selectOutcome = db.prepare('SELECT outcome FROM run_requests WHERE id = ?');
    this.withdrawOpen = db.prepare('DELETE FROM run_requests WHERE id = ? AND handled_at IS NULL');
    this.removeOne = db.prepare('DELETE FROM run_requests WHERE id = ?');
    this.removeHandledBefore = db.prepare('DELETE FROM run_requests WHERE handled_at < ?');
    this.selectOwner = db.prepare(
      'SELECT pid, process_start, host, heartbeat_at FROM session_owners WHERE session_id = ?',
    );
  }

  /** Leaves a request for the owner of `sessionId`; returns its id. */
  post(sessionId: string, kind: RunRequestKind, answer: OpenRunRequest['answer'] = null): number {
    const payload = answer ? JSON.stringify(answer) : null;
    return Number(
      inWriteTurn(this.db, () => this.insert.run(sessionId, kind, payload, this.now())).lastInsertRowid,
    );
  }

  /** Every request no process has handled yet, oldest first. */
  open(): OpenRunRequest[] {
    return (this.selectOpen.all() as Array<Record<string, unknown>>).map((row) => ({
      id: row.id as number,
      sessionId: row.session_id as string,
      kind: row.kind as RunRequestKind,
      answer: typeof row.payload === 'string' ? (JSON.parse(row.payload) as OpenRunRequest['answer']) : null,
    }));
  }

  /** Records how a request was handled (once; a withdrawn request is left alone). */
  settle(id: number, outcome: RunRequestOutcome): void {
    inWriteTurn(this.db, () => this.markHandled.run(this.now(), JSON.stringify(outcome), id));
  }

  /** The outcome once the request is handled; null while it waits; undefined when it is gone. */
  outcome(id: number): RunRequestOutcome | null | undefined {
    const row = this.selectOutcome.get(id) as { outcome: string | null } | undefined;
    if (!row) return undefined;
    return row.outcome === null ? null : (JSON.parse(row.outcome) as RunRequestOutcome);
  }

  /** Takes back a request nobody handled; false when it was handled meanwhile (read its outcome). */
  withdraw(id: number): boolean {
    return inWriteTurn(this.db, () => this.withdrawOpen.run(id)).changes > 0;
  }

  /** Deletes a request whose outcome was read. */
  remove(id: number): void {
    inWriteTurn(this.db, () => this.removeOne.run(id));
  }

  /** Deletes handled requests older than `ms` (their requester is gone without reading them). */
  removeHandledOlderThan(ms: number): void {
    inWriteTurn(this.db, () => this.removeHandledBefore.run(this.now() - ms));
  }

  /** The recorded owner of a session, null when none is recorded. */
  owner(sessionId: string, me: ProcessIdentity = currentProcess()): SessionOwner | null {
    const row = this.selectOwner.get(sessionId) as OwnerRow | undefined;
    if (!row) return null;
    return {
      ...row,
      alive: ownerIsAlive(row, this.now(), me),
      self: row.pid === me.pid && row.host === me.host && row.process_start === me.processStart,
    };
  }
}
