import { emptyView, FINAL_STATUSES, type RunEvent, type SessionStatus, type ViewState } from '@shared/domain';
import type { SqliteDatabase } from './database';
import type { Materializer, SessionTally } from './materializer';
import type { ImportedEvent, ImportedSessionMeta } from './ports';

/** A fresh in-memory tally of a session about to be written. */
export function newTally(
  id: string,
  createdAt: number,
  status: SessionStatus,
  view: ViewState,
): SessionTally {
  return {
    id,
    createdAt,
    status,
    stopReason: null,
    endedAt: null,
    lastSeq: 0,
    lastT: 0,
    messageCount: 0,
    tokens: 0,
    cost: 0,
    unpricedCalls: 0,
    busyMs: 0,
    view,
    eventsSinceCheckpoint: 0,
    open: new Map(),
  };
}

/** The tally an import starts from, the same on every connection that writes it. */
export const importTally = (id: string, createdAt: number): SessionTally =>
  newTally(id, createdAt, 'running', emptyView());

/**
 * The writes of an imported session, on one connection: its row, its events (numbered from 1,
 * folded by the Materializer) and its ending. Used by the store's own connection (whole imports,
 * batched imports) and by an import's writer thread on a connection of its own
 * (import/worker/run-write-job.ts), so both store exactly the same rows. Call inside a transaction.
 */
export class ImportWriter {
  private readonly insertSession;
  private readonly setSourceHash;

  constructor(
    db: SqliteDatabase,
    private readonly materializer: Materializer,
  ) {
    this.insertSession =
      db.prepare(`INSERT INTO sessions (id, title, task, fleet_name, status, created_at, updated_at,
      ended_at, tags, source, read_only) VALUES (@id, @title, @task, @fleetName, @status, @createdAt, @createdAt,
      @endedAt, @tags, @source, @readOnly)`);
    this.setSourceHash = db.prepare('UPDATE sessions SET source_hash = ? WHERE id = ?');
  }

  /** An imported session's row: read-only, `running` while written batch by batch. */
  insertImported(id: string, meta: ImportedSessionMeta, status: 'running' | 'completed'): void {
    this.insertSession.run({
      id,
      title: meta.title,
      task: meta.task,
      fleetName: meta.fleetName,
      status,
      createdAt: meta.createdAt,
      endedAt: status === 'completed' ? meta.createdAt : null,
      tags: JSON.stringify(meta.tags),
      source: meta.source,
      readOnly: 1,
    });
    if (meta.sourceHash) this.recordSourceHash(id, meta.sourceHash);
  }

  /** The content hash of the file an imported session came from (SessionQueries.findImport). */
  recordSourceHash(id: string, sourceHash: string): void {
    this.setSourceHash.run(sourceHash, id);
  }

  /**
   * Numbers imported events after `seq` and writes them, one by one; the last seq and whether one
   * stopped. `bulk`: the events are this write's own (parsed for it), so they are numbered in
   * place instead of copied, and a message started and completed by consecutive events is written
   * whole (Materializer.applyWholeMessage), which stores the same rows with fewer statements.
   */
  apply(
    tally: SessionTally,
    events: Iterable<ImportedEvent>,
    seq: number,
    options: { bulk?: boolean } = {},
  ): { seq: number; stopped: boolean } {
    const bulk = options.bulk === true;
    let stopped = false;
    /** A start held back to see whether the next event completes its message. */
    let started: Extract<RunEvent, { kind: 'message.started' }> | null = null;
    for (const imported of events) {
      seq += 1;
      const event = (
        bulk
          ? Object.assign(imported, { sessionId: tally.id, seq })
          : { ...imported, sessionId: tally.id, seq }
      ) as RunEvent;
      if (started) {
        if (event.kind === 'message.completed') this.materializer.applyWholeMessage(tally, started, event);
        else this.materializer.apply(tally, started);
        const pair = event.kind === 'message.completed';
        started = null;
        if (pair) continue;
      }
      if (bulk && event.kind === 'message.started') started = event;
      else this.materializer.apply(tally, event);
      if (event.kind === 'session.stopped') stopped = true;
    }
    if (started) this.materializer.apply(tally, started);
    return { seq, stopped };
  }

  /**
   * Ends a batch of a session still being imported: its buffered text and its row, which stays
   * `running` (not ended) whatever the events so far say, so a reader never sees a half-written
   * import as a finished session.
   */
  commitBatch(tally: SessionTally): void {
    this.materializer.finishCommit(tally, { inProgress: true });
  }

  /** Ends an import: replies cut off stay partial; a log without a final stop is completed. */
  finish(tally: SessionTally, createdAt: number, stopped: boolean): void {
    this.materializer.closeOpenMessages(tally);
    if (!stopped || !FINAL_STATUSES.includes(tally.status)) {
      tally.status = 'completed';
      tally.endedAt = createdAt + Math.round(tally.lastT);
    }
    this.materializer.finishCommit(tally);
  }
}
