import { randomUUID } from 'node:crypto';
import {
  emptyView,
  FINAL_STATUSES,
  type PriceOverride,
  type RunEvent,
  type SessionStatus,
  type UsagePricer,
} from '@shared/domain';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import { Materializer, type SessionTally } from './materializer';
import type { MessageQueries } from './message-queries';
import { deleteSessionRows } from './maintenance';
import { importTally, ImportWriter, newTally } from './import-writer';
import type { ImportedEvent, ImportedSessionMeta, ImportInProgress, ImportThreadHandoff } from './ports';
import { OwnerRecords } from './ownership';
import { createPricer, type PriceSource } from './pricing';
import { writeTransaction, writeTurnsOf, type WriteTurns } from './write-turns';
import { endSessionAsOf } from './recovery';
import {
  cannotWrite,
  freeBytes,
  isFull,
  isLocked,
  MIN_FREE_BYTES,
  readOnlyFault,
  sqliteCode,
  storeFullFault,
  storeLockedFault,
  type StoreFault,
} from './store-faults';

/**
 * Events buffered before a commit without waiting for the timer: bounds the memory a fast run
 * holds and the size of one transaction.
 */
export const MAX_PENDING_EVENTS = 2_000;

/**
 * A session's start, status changes and end commit at once (with everything buffered before
 * them): a few per run, and readers (the session list, a view opened on a run just started, a
 * process that finds a run another one ended) see the session as it is without waiting. While
 * an import's writing thread has a job, a status change or an end commits as soon as the thread
 * is out of its transaction (commitOrReport) instead of blocking this thread for it; a start
 * still commits at once, as its failure refuses the run.
 */
const COMMIT_AT_ONCE: ReadonlySet<RunEvent['kind']> = new Set([
  'session.started',
  'session.continued',
  'session.status',
  'session.stopped',
]);

/**
 * A completed message commits without waiting for the group-commit window (at once unless an
 * import's writing thread is in its transaction, then as soon as it is out): the model call that
 * produced it was paid for, and a store that cannot keep it must stop the run (onStoreFault)
 * before the run's next call starts. With a 16 ms window, several fast replies could otherwise
 * start, be paid for and be lost under load. Its deltas were already grouped by the recorder, so
 * this is one small transaction per reply; a failure is reported, not thrown at the run.
 */
const COMMIT_SOON: ReadonlySet<RunEvent['kind']> = new Set(['message.completed']);

export interface LiveWriterOptions {
  /** Events between checkpoints of the folded view. */
  checkpointInterval: number;
  /** Milliseconds buffered events may wait before their batch commits (the group commit window). */
  batchMs: number;
  /** Clock for new sessions' created_at, epoch milliseconds. */
  now: () => number;
  /** Called after each commit with the ids of the sessions it changed. */
  onDidCommit: (sessionIds: string[]) => void;
  /** A batch committed from the timer failed (flush() throws instead). */
  onWriteError: (error: unknown) => void;
  /**
   * The store cannot write (disk full, read-only): the live sessions were halted (their next
   * appends throw `fault`); whoever drives them stops them now.
   */
  onStoreFault?: (fault: StoreFault) => void;
  /** The native binding the store was opened with, for an import's writer thread. */
  nativeBinding?: string;
}

/**
 * The write side: buffers live events and commits them in groups (one transaction per `batchMs`,
 * sooner past MAX_PENDING_EVENTS, at a session's start, status change or end, at a completed
 * message (COMMIT_SOON), or on `commit()`),
 * and imports whole sessions.
 *
 * Nothing a surface shows may be lost to a crash, so a group commit is only safe because the
 * runtime shows an event to its listeners after `whenDurable` calls back (see EventSink); the
 * callbacks of a batch run after its transaction commits, and those of a failed batch wait for
 * the commit that retries it.
 */
export class LiveWriter {
  private readonly materializer: Materializer;
  private readonly imports: ImportWriter;
  /** Live writes go first: an import's writing thread yields the lock to them. */
  private readonly turns: WriteTurns;
  private readonly live = new Map<string, SessionTally>();
  /** Live sessions this process has recorded itself as the owner of (see ownership.ts). */
  private readonly owned = new Set<string>();
  private readonly owners: OwnerRecords;
  private readonly acceptedSeq = new Map<string, number>();
  private pending: RunEvent[] = [];
  /** Called once the events pending now are committed. */
  private waiting: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly insertSession;
  private readonly sessionRow;
  private readonly lastSeq;
  private readonly streamingRows;
  private readonly lastCheckpoint;
  /**
   * The group commit's transaction, made once (better-sqlite3 builds a wrapper per `transaction()`
   * call); it writes `this.writing` and the tallies it touches into `this.touched`.
   */
  private readonly writeBatch;
  private writing: readonly RunEvent[] = [];
  private touched = new Map<string, SessionTally>();
  /** A group commit waits on the event loop for an import's writing thread (commitOrReport). */
  private waitingForThread = false;
  /** Sessions whose events the store could not write, and why: their appends are refused. */
  private readonly halted = new Map<string, StoreFault>();
  /**
   * Prices usage that arrives unpriced (imports, traces): Settings' overrides, then the table.
   * The overrides come from `priceSource`, read again when an import starts and at the first
   * unpriced usage after each commit (`pricesRead`), so a change saved by another process on the
   * same store applies without a restart.
   */
  private priceSource: () => readonly PriceOverride[] = () => [];
  private priceOverrides: readonly PriceOverride[] = [];
  private pricesKey = '[]';
  private pricer: UsagePricer = createPricer();
  private pricesRead = false;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly messages: MessageQueries,
    private readonly options: LiveWriterOptions,
  ) {
    this.turns = writeTurnsOf(db);
    // A store file's checkpoints go to a thread of their own once it writes often (a live run).
    if (!db.memory && !db.readonly) this.turns.checkpointOnThread(db.name, options.nativeBinding);
    this.materializer = new Materializer(db, options.checkpointInterval, {
      pricer: (usage) => this.currentPricer()(usage),
    });
    this.imports = new ImportWriter(db, this.materializer);
    this.owners = new OwnerRecords(db);
    this.insertSession =
      db.prepare(`INSERT INTO sessions (id, title, task, fleet_name, status, created_at, updated_at,
      ended_at, tags, source, read_only) VALUES (@id, @title, @task, @fleetName, @status, @createdAt, @createdAt,
      @endedAt, @tags, @source, @readOnly)`);
    this.sessionRow = db.prepare(
      `SELECT status, stop_reason, created_at, ended_at, message_count, tokens, cost, unpriced_calls, busy_ms, read_only
        FROM sessions WHERE id = ?`,
    );
    this.lastSeq = db.prepare('SELECT max(seq) AS seq FROM events WHERE session_id = ?');
    this.streamingRows = db.prepare(
      "SELECT pk, id, prompt_tokens, completion_tokens FROM messages WHERE session_id = ? AND state = 'streaming'",
    );
    this.lastCheckpoint = db.prepare('SELECT max(seq) AS seq FROM checkpoints WHERE session_id = ?');
    this.writeBatch = db.transaction(() => {
      const touched = this.touched;
      for (const event of this.writing) {
        const tally = touched.get(event.sessionId) ?? this.tallyFor(event);
        touched.set(event.sessionId, tally);
        this.materializer.apply(tally, event);
      }
      for (const tally of touched.values()) {
        this.materializer.finishCommit(tally);
        this.recordOwner(tally);
      }
    });
  }

  /** Accepts one live event. Throws (without buffering it) when it cannot belong to the log. */
  append(event: RunEvent): void {
    const fault = this.halted.get(event.sessionId);
    // A continuation is a new attempt (the disk may have room again); anything else of a halted run is refused.
    if (fault !== undefined && event.kind !== 'session.continued') throw fault;
    this.halted.delete(event.sessionId);
    const last = this.acceptedSeq.get(event.sessionId) ?? this.loadAcceptedSeq(event);
    if (event.seq <= last) {
      throw new HistoryError(
        'out-of-order',
        `Event ${event.seq} of session ${event.sessionId} is not after ${last}.`,
      );
    }
    this.acceptedSeq.set(event.sessionId, event.seq);
    this.pending.push(event);
    if (COMMIT_AT_ONCE.has(event.kind)) {
      if (event.kind !== 'session.started' && this.turns.importing()) this.commitOrReport();
      else this.commit();
    } else if (COMMIT_SOON.has(event.kind) || this.pending.length >= MAX_PENDING_EVENTS)
      this.commitOrReport();
    else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.commitOrReport();
      }, this.options.batchMs);
      this.timer.unref?.();
    }
  }

  /** Calls `callback` once everything appended so far is committed (at once if nothing waits). */
  whenDurable(callback: () => void): void {
    if (this.pending.length === 0) callback();
    else this.waiting.push(callback);
  }

  /**
   * Calls `callback` once everything appended so far is committed, committing now instead of at
   * the end of the group-commit window; while an import's writing thread is in its transaction
   * the commit waits for it on the event loop (commitOrReport), never blocking this thread. A
   * failed commit is reported (onWriteError) and the callback waits for the one that retries.
   */
  commitSoon(callback: () => void): void {
    if (this.pending.length === 0) {
      callback();
      return;
    }
    this.waiting.push(callback);
    this.commitOrReport();
  }

  /** Commits everything buffered; throws if the transaction fails. */
  /**
   * Prices usage written from now on that arrives unpriced (imports, traces) by these overrides
   * first: a list, or a function that reads the current one (see `priceSource`).
   */
  setPriceOverrides(source: PriceSource): void {
    this.priceSource = typeof source === 'function' ? source : () => source;
    this.pricesRead = false;
  }

  /** The pricer by the overrides as the source gives them now (read once per commit or import). */
  private currentPricer(): UsagePricer {
    if (this.pricesRead) return this.pricer;
    this.pricesRead = true;
    const overrides = this.priceSource();
    const key = JSON.stringify(overrides);
    if (key !== this.pricesKey) {
      this.priceOverrides = overrides;
      this.pricesKey = key;
      this.pricer = createPricer(overrides);
    }
    return this.pricer;
  }

  commit(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.pricesRead = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    const waiting = this.waiting;
    this.pending = [];
    this.waiting = [];
    const touched = new Map<string, SessionTally>();
    this.writing = batch;
    this.touched = touched;
    try {
      // IMMEDIATE (here and in every write of this class): another connection (an import's
      // writing thread, another process) may commit between a deferred transaction's first read
      // and its first write, and SQLite then refuses the write at once (SQLITE_BUSY) instead of
      // waiting for the lock as busy_timeout lets it when the lock is taken at BEGIN.
      this.turns.mine(() => this.writeBatch.immediate());
    } catch (error) {
      // Nothing of the batch reached the disk: keep it, in order, for the next commit (a busy or
      // full disk is usually transient), and reload the rolled-back in-memory tallies from disk.
      this.pending = batch.concat(this.pending);
      this.waiting = waiting.concat(this.waiting);
      for (const id of touched.keys()) {
        this.live.delete(id);
        this.owned.delete(id);
      }
      throw this.faultFrom(error, batch);
    } finally {
      this.writing = [];
    }
    for (const tally of touched.values()) {
      if (FINAL_STATUSES.includes(tally.status)) this.live.delete(tally.id);
    }
    this.options.onDidCommit([...touched.keys()]);
    for (const callback of waiting) callback();
  }

  /**
   * Turns a failed commit into what the caller is told. A store that cannot write (full disk,
   * read-only) halts every session being written: what was committed stays, the batches that
   * cannot be written are dropped (their events were never shown: see whenDurable), each session
   * is ended on disk where the store still takes that last small write, and onStoreFault tells
   * the driver to stop the runs at once. A locked store names its holder; its batch is kept.
   */
  private faultFrom(error: unknown, batch: readonly RunEvent[]): unknown {
    const file = this.db.name;
    if (isLocked(error)) return storeLockedFault(file, this.db, this.options.now());
    if (!cannotWrite(error)) return error;
    const readOnly = sqliteCode(error)?.startsWith('SQLITE_READONLY') === true;
    const free = freeBytes(file);
    // A disk I/O error with room to spare may pass (the batch is kept); a full disk stays full.
    if (!isFull(error) && !readOnly && (free === null || free >= MIN_FREE_BYTES)) return error;
    const bytes = batch.reduce((sum, event) => sum + JSON.stringify(event.payload ?? null).length, 0);
    const fault = readOnly ? readOnlyFault(file, 'Recording this run') : storeFullFault(file, this.db, bytes);
    const sessions = new Set([
      ...this.pending.map((event) => event.sessionId),
      ...this.owned,
      ...this.live.keys(),
    ]);
    this.pending = [];
    this.waiting = [];
    for (const id of sessions) {
      this.halted.set(id, fault);
      this.live.delete(id);
      this.acceptedSeq.delete(id);
      this.owned.delete(id);
      try {
        endSessionAsOf(this.db, id, 'failed', fault.message);
      } catch {
        // No room even for that: the next start marks it interrupted (recovery.ts).
      }
    }
    this.options.onStoreFault?.(fault);
    return fault;
  }

  /** Live sessions' buffered counters (message count), or null when not being written. */
  tally(sessionId: string): SessionTally | null {
    return this.live.get(sessionId) ?? null;
  }

  isLive(sessionId: string): boolean {
    const tally = this.live.get(sessionId);
    return tally !== undefined && !FINAL_STATUSES.includes(tally.status);
  }

  forget(sessionId: string): void {
    this.live.delete(sessionId);
    this.acceptedSeq.delete(sessionId);
    this.owned.delete(sessionId);
  }

  /** Refreshes the heartbeat of every live session this process drives. */
  heartbeat(): void {
    if (this.owned.size > 0) this.turns.mine(() => this.owners.heartbeat(this.owned, this.options.now()));
  }

  /** Live sessions a process claims while it drives them and releases when they end. */
  private recordOwner(tally: SessionTally): void {
    if (FINAL_STATUSES.includes(tally.status)) {
      if (this.owned.delete(tally.id)) this.owners.release(tally.id);
    } else if (!this.owned.has(tally.id)) {
      this.owners.claim(tally.id, this.options.now());
      this.owned.add(tally.id);
    }
  }

  /** Writes a whole session in one transaction and returns its new id; on any error, nothing. */
  importSession(meta: ImportedSessionMeta, events: Iterable<ImportedEvent>): string {
    this.commit();
    this.currentPricer();
    const id = randomUUID();
    writeTransaction(this.db, () => {
      this.imports.insertImported(id, meta, 'completed');
      const tally = newTally(id, meta.createdAt, 'completed', emptyView());
      const { stopped } = this.imports.apply(tally, events, 0);
      this.imports.finish(tally, meta.createdAt, stopped);
    });
    this.options.onDidCommit([id]);
    return id;
  }

  /**
   * Starts an import written batch by batch (see ImportInProgress). The session row is written at
   * once as read-only and running, owned by this process, and stays so until the last commit
   * gives it its final status. Only the end announces it (onDidCommit), so views do not refresh
   * on every batch. With a store file, a writer thread may write it instead (`thread`).
   */
  beginImport(meta: ImportedSessionMeta): ImportInProgress {
    this.commit();
    // The overrides as of the import's start, for a writing thread too.
    this.currentPricer();
    const id = randomUUID();
    const tally = importTally(id, meta.createdAt);
    let seq = 0;
    let stopped = false;
    let state: 'open' | 'failed' | 'finished' | 'aborted' = 'open';
    writeTransaction(this.db, () => {
      this.imports.insertImported(id, meta, 'running');
      this.recordOwner(tally);
    });
    const whileOpen = <T>(write: () => T): T => {
      if (state !== 'open') throw new HistoryError('invalid-input', `The import of ${id} is ${state}.`);
      try {
        return writeTransaction(this.db, write);
      } catch (error) {
        // The in-memory tally no longer matches the disk: the only way on is abort().
        state = 'failed';
        throw error;
      }
    };
    const thread: ImportThreadHandoff | undefined = this.db.memory
      ? undefined
      : {
          store: {
            file: this.db.name,
            nativeBinding: this.options.nativeBinding,
            checkpointInterval: this.options.checkpointInterval,
            writeTurns: this.turns.shared,
            priceOverrides: this.priceOverrides,
          },
          finishedOnThread: () => {
            if (state !== 'open') throw new HistoryError('invalid-input', `The import of ${id} is ${state}.`);
            // The thread's last transaction ended the session and released it (ownership.ts).
            state = 'finished';
            this.owned.delete(id);
            this.options.onDidCommit([id]);
            return id;
          },
        };
    return {
      sessionId: id,
      append: (events) =>
        whileOpen(() => {
          const applied = this.imports.apply(tally, events, seq);
          seq = applied.seq;
          stopped ||= applied.stopped;
          this.imports.commitBatch(tally);
        }),
      finish: () => {
        whileOpen(() => {
          this.imports.finish(tally, meta.createdAt, stopped);
          this.recordOwner(tally);
        });
        state = 'finished';
        this.options.onDidCommit([id]);
        return id;
      },
      abort: () => {
        if (state === 'finished' || state === 'aborted') return;
        state = 'aborted';
        if (this.owned.delete(id)) this.owners.release(id);
        deleteSessionRows(this.db, id);
      },
      thread,
    };
  }

  dispose(): void {
    try {
      this.commit();
    } finally {
      this.turns.dispose();
    }
  }

  /**
   * A commit nobody waits on synchronously (the group commit): a failure is reported, and the
   * batch kept for the next. While an import's writing thread is in its transaction it waits for
   * it on the event loop instead of blocking (WriteTurns.whenThreadOut), then commits everything
   * buffered by then; one such wait at a time.
   */
  private commitOrReport(): void {
    if (this.waitingForThread) return;
    this.waitingForThread = true;
    this.turns.whenThreadOut(() => {
      this.waitingForThread = false;
      try {
        this.commit();
      } catch (error) {
        this.options.onWriteError(error);
      }
    });
  }

  private loadAcceptedSeq(event: RunEvent): number {
    const row = this.sessionRow.get(event.sessionId) as { read_only: number } | undefined;
    if (!row) {
      if (event.kind === 'session.started') return 0;
      throw new HistoryError(
        'unknown-session',
        `No session ${event.sessionId}; its first event must be session.started.`,
      );
    }
    if (row.read_only) throw new HistoryError('read-only', `Session ${event.sessionId} is read-only.`);
    if (event.kind === 'session.started') {
      throw new HistoryError('invalid-input', `Session ${event.sessionId} has already started.`);
    }
    return (this.lastSeq.get(event.sessionId) as { seq: number | null }).seq ?? 0;
  }

  private tallyFor(event: RunEvent): SessionTally {
    const cached = this.live.get(event.sessionId);
    if (cached) return cached;
    const tally =
      event.kind === 'session.started' ? this.createSession(event) : this.loadTally(event.sessionId);
    this.live.set(tally.id, tally);
    return tally;
  }

  private createSession(event: Extract<RunEvent, { kind: 'session.started' }>): SessionTally {
    const createdAt = this.options.now() - Math.round(event.t);
    const p = event.payload;
    this.insertSession.run({
      id: event.sessionId,
      title: p.title,
      task: p.task,
      fleetName: p.fleetName,
      status: 'running',
      createdAt,
      endedAt: null,
      tags: '[]',
      source: 'live',
      readOnly: 0,
    });
    return newTally(event.sessionId, createdAt, 'running', emptyView());
  }

  /** Rebuilds a tally from disk for a session that was not being written in this process. */
  private loadTally(sessionId: string): SessionTally {
    const row = this.sessionRow.get(sessionId) as
      | {
          status: SessionStatus;
          stop_reason: string | null;
          created_at: number;
          ended_at: number | null;
          message_count: number;
          tokens: number;
          cost: number;
          unpriced_calls: number;
          busy_ms: number;
        }
      | undefined;
    if (!row) throw new HistoryError('unknown-session', `No session ${sessionId}.`);
    const lastSeq = (this.lastSeq.get(sessionId) as { seq: number | null }).seq ?? 0;
    const checkpointSeq = (this.lastCheckpoint.get(sessionId) as { seq: number | null }).seq ?? 0;
    const tally = newTally(sessionId, row.created_at, row.status, this.messages.seek(sessionId, lastSeq));
    tally.stopReason = row.stop_reason;
    tally.endedAt = row.ended_at;
    tally.messageCount = row.message_count;
    tally.tokens = row.tokens;
    tally.cost = row.cost;
    tally.unpricedCalls = row.unpriced_calls;
    tally.busyMs = row.busy_ms;
    tally.lastSeq = lastSeq;
    tally.lastT = tally.view.t;
    tally.eventsSinceCheckpoint = lastSeq - checkpointSeq;
    const streaming = this.streamingRows.all(sessionId) as Array<{
      pk: number;
      id: string;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }>;
    for (const message of streaming) {
      const usage =
        message.prompt_tokens === null
          ? undefined
          : { prompt: message.prompt_tokens, completion: message.completion_tokens ?? 0 };
      tally.open.set(message.id, { pk: message.pk, pendingText: '', usage });
    }
    return tally;
  }
}
