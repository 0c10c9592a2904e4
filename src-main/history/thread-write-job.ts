import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS, openRaw, type SqliteDatabase } from './database';
import { decodeEventBatch } from './event-batch-text';
import { importTally, ImportWriter } from './import-writer';
import { FtsMerging } from './fts-merging';
import { Materializer, type SessionTally } from './materializer';
import { OwnerRecords } from './ownership';
import { createPricer } from './pricing';
import { ROWS_PER_STATEMENT } from './row-batch';
import { ThreadWriteTurns } from './write-turns';
import type { ImportedEvent } from './ports';
import type { WriteJob, WriteReport, WriteRequest } from './thread-write-protocol';

/**
 * A transaction takes the batches already waiting until it has run this long, so commits are a
 * small part of the work. A write of the main thread (a live run's commit, a rename) does not
 * wait for its end: it ends at the next chunk (CHUNK_EVENTS), see write-turns.ts, but then waits
 * for its commit, which grows with it (the pages and full-text terms it wrote): a longer
 * transaction saves commits and lengthens that wait. Writers in other processes wait at most
 * this long, well within busy_timeout, and a cancel is answered after it.
 */
export const TRANSACTION_MS = 200;

/**
 * While the main thread writes often (it wanted to within LIVE_WINDOW_MS: a live run commits
 * every 16 ms), a transaction ends after this long, so the one a live commit waits for has only
 * a few milliseconds of rows to commit (milliseconds; measured in test/bench/history.bench.ts,
 * import-live-stall).
 */
const LIVE_TRANSACTION_MS = 4;

/** How recently the main thread must have wanted to write for LIVE_TRANSACTION_MS (ms). */
const LIVE_WINDOW_MS = 250;

/**
 * Events written between looks at the main thread's wish to write: one multi-row insert's worth
 * (a fraction of a millisecond). A write of the main thread waits for at most one chunk and the
 * commit of what the transaction holds.
 */
const CHUNK_EVENTS = ROWS_PER_STATEMENT;

/**
 * Events committed between the thread's checkpoints (some hundreds of pages with short messages,
 * thousands with long ones: about SQLite's own automatic threshold of 1,000), and always after
 * its last transaction. A checkpoint after every transaction would sync the database file as
 * often, which small first batches make many.
 */
const CHECKPOINT_EVENTS = 16_384;

/** A batch being written, and how many of its events are. */
interface ParsedBatch {
  session: number;
  events: ImportedEvent[];
  written: number;
  done: number;
}

const parsed = (request: Extract<WriteRequest, { type: 'events' }>): ParsedBatch => ({
  session: request.session,
  events: decodeEventBatch(request.events),
  written: 0,
  done: request.done,
});

/** The longest this thread waits for the main thread's writes before it takes the lock anyway. */
const YIELD_MAX_MS = 1_000;

/**
 * The longest a checkpoint's rewind of the WAL waits for readers (ms), holding the write lock
 * meanwhile; the connection's busy_timeout (openRaw) otherwise.
 */
const REWIND_WAIT_MS = 20;

/**
 * The writing thread's work: the import's events written on a connection of its own, through the
 * same ImportWriter and Materializer as the store's connection, so the rows are the same. Each
 * transaction holds the batch that woke it and those already waiting, up to TRANSACTION_MS or
 * until the main thread wants to write (write-turns.ts); the lock is never held between
 * messages. The job comes first (`start`), `finish` ends every session and releases it in one
 * last transaction. Any failure is reported and ends the writing; the main thread deletes what
 * was committed.
 */
export function runWriteJob(port: MessagePort): void {
  let writing: SessionsWriting | null = null;
  let ended = false;
  const end = () => {
    ended = true;
    writing?.close();
    port.close();
  };
  const started = (): SessionsWriting => {
    if (!writing) throw new Error("The import's writing thread was given events before its job.");
    return writing;
  };
  const handle = (request: WriteRequest) => {
    if (ended) return;
    try {
      switch (request.type) {
        case 'start':
          if (writing) throw new Error("The import's writing thread was given a second job.");
          writing = new SessionsWriting(request.job);
          break;
        case 'events': {
          const written = started().write(request, () => receive(port));
          post(port, { type: 'written', batches: written.batches, done: written.done });
          if (written.next) handle(written.next);
          break;
        }
        case 'finish':
          started().finish(request.sourceHash);
          post(port, { type: 'finished' });
          end();
          break;
        case 'close':
          end();
          break;
      }
    } catch (error) {
      post(port, failure(error));
      end();
    }
  };
  port.on('message', handle);
}

function receive(port: MessagePort): WriteRequest | undefined {
  return receiveMessageOnPort(port)?.message as WriteRequest | undefined;
}

function post(port: MessagePort, report: WriteReport): void {
  port.postMessage(report);
}

function failure(error: unknown): WriteReport {
  return { type: 'failed', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Writes what the system holds of `file` to the disk (what a bulk checkpoint copied into the
 * database file), outside the thread's turn. SQLite syncs the database file only at the end of a
 * checkpoint that copied every frame, and the bulk copy rarely does (a live run appends frames
 * meanwhile), so the sync fell to the rewind in the turn: it wrote out all the bulk had copied,
 * tens of megabytes, while a live write waited (35-118 ms measured). Done here first, the
 * rewind's own sync has only its few frames left. A file that cannot be synced here is left to
 * SQLite's own sync, which reports what fails.
 */
function syncToDisk(file: string): void {
  try {
    const fd = openSync(file, 'r+');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Left to the checkpoint's own sync.
  }
}

/** The sessions of one import, as the writing thread's connection writes them. */
class SessionsWriting {
  private readonly db: SqliteDatabase;
  private readonly writer: ImportWriter;
  private readonly owners: OwnerRecords;
  private readonly turns: ThreadWriteTurns;
  private readonly tallies: SessionTally[];
  private readonly seqs: number[];
  private readonly stopped: boolean[];
  /** The index's merging, this thread's while it writes (see fts-merging.ts). */
  private readonly merging: FtsMerging;
  /** Whether this thread turned the index's automatic merging off (its first transaction). */
  private mergingPaused = false;
  /** Events committed since the last checkpoint. */
  private uncheckpointed = 0;

  constructor(private readonly job: WriteJob) {
    this.db = openRaw(job.store.file, { nativeBinding: job.store.nativeBinding });
    try {
      // Checkpoints come between transactions, outside the turn (see checkpoint()).
      this.db.pragma('wal_autocheckpoint = 0');
      this.writer = new ImportWriter(
        this.db,
        new Materializer(this.db, job.store.checkpointInterval, {
          batchRows: true,
          pricer: createPricer(job.store.priceOverrides),
        }),
      );
      this.owners = new OwnerRecords(this.db);
      this.merging = new FtsMerging(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.turns = new ThreadWriteTurns(job.store.writeTurns);
    this.tallies = job.sessions.map((session) => importTally(session.id, session.createdAt));
    this.seqs = job.sessions.map(() => 0);
    this.stopped = job.sessions.map(() => false);
  }

  /**
   * Writes `first` and the batches `receive` has waiting, in transactions of at most about
   * TRANSACTION_MS (LIVE_TRANSACTION_MS while the main thread writes often), each ended early
   * (before the next chunk of CHUNK_EVENTS) when the main thread wants to write, and the next
   * begun once it has; a request other than events that was taken is returned as `next`.
   * Returns after a commit with no batch left half-written.
   */
  write(
    first: Extract<WriteRequest, { type: 'events' }>,
    receive: () => WriteRequest | undefined,
  ): { batches: number; done: number; next: WriteRequest | undefined } {
    let batches = 0;
    let done = first.done;
    let next: WriteRequest | undefined;
    let current: ParsedBatch | null = parsed(first);
    while (current) {
      const touched = new Set<number>();
      // IMMEDIATE: the lock is taken (or waited for) at BEGIN, so a live write the main thread
      // commits meanwhile cannot make this one fail (see LiveWriter.commit).
      const transaction = this.db.transaction(() => {
        const started = performance.now();
        const budget = this.turns.wantedWithin(LIVE_WINDOW_MS) ? LIVE_TRANSACTION_MS : TRANSACTION_MS;
        const enough = () => this.turns.wanted() || performance.now() - started >= budget;
        this.mergeSome(enough);
        // Looked at before every chunk but the first (each transaction writes one at least, and
        // a batch parsed in it is looked at again before it is written) and before a parse.
        let first = true;
        while (current) {
          if (!first && enough()) break;
          first = false;
          touched.add(current.session);
          if (!this.applyChunk(current)) continue;
          batches += 1;
          done = current.done;
          current = null;
          if (enough()) break;
          const request = receive();
          if (request?.type === 'events') current = parsed(request);
          else next = request;
        }
        for (const session of touched) this.writer.commitBatch(this.tally(session));
      });
      this.turns.mine(() => transaction.immediate(), YIELD_MAX_MS);
      // Not while a write of the main thread waits: it would take the disk that write needs.
      if (this.uncheckpointed >= CHECKPOINT_EVENTS && !this.turns.wanted()) this.checkpoint();
    }
    return { batches, done, next };
  }

  /**
   * The index's merging, done here instead of in commits (fts-merging.ts): turned off in the
   * first transaction, then at the start of each, steps until there is none to merge or
   * `enough` (one step at least, so merging keeps up with the rows written, also while a live
   * run's commits keep every transaction short).
   */
  private mergeSome(enough: () => boolean): void {
    if (!this.mergingPaused) {
      this.merging.pause();
      this.mergingPaused = true;
    }
    let stepped = false;
    while (!stepped || !enough()) {
      stepped = true;
      if (!this.merging.step()) return;
    }
  }

  /**
   * Copies the WAL into the database between transactions, in two steps. First the bulk, once the
   * turn is over: a PASSIVE checkpoint takes no write lock, so a live write waiting for the turn
   * goes ahead meanwhile. Then, in the turn, the frames live writes appended since and a rewind
   * (`rewind`: RESTART, or TRUNCATE to give the disk back), so the next writer starts the WAL
   * from its beginning. Two connections taking turns never rewind it otherwise (each begins its
   * next transaction before the WAL is found whole in the database and unread): measured, a
   * million-message import left 710,000 frames (2.8 GB) of WAL, and the first checkpoint of the
   * store's own connection after the import (it makes none while this thread writes: WriteTurns)
   * held the main thread for 200-300 ms. The rewind waits for readers at most REWIND_WAIT_MS; one
   * still reading leaves the WAL as it is, for a later checkpoint.
   */
  private checkpoint(rewind: 'RESTART' | 'TRUNCATE' = 'RESTART'): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
    this.uncheckpointed = 0;
    syncToDisk(this.job.store.file);
    this.turns.mine(() => {
      this.db.pragma(`busy_timeout = ${REWIND_WAIT_MS}`);
      try {
        this.db.pragma(`wal_checkpoint(${rewind})`);
      } finally {
        this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    }, YIELD_MAX_MS);
  }

  /**
   * The last transaction: every session's ending (status, counters, open replies), the file's
   * hash, and release.
   */
  finish(sourceHash: string): void {
    const transaction = this.db.transaction(() => {
      this.tallies.forEach((tally, index) => {
        this.writer.finish(tally, tally.createdAt, this.stopped[index] ?? false);
        this.writer.recordSourceHash(tally.id, sourceHash);
        this.owners.release(tally.id);
      });
      this.merging.resume();
    });
    this.turns.mine(() => transaction.immediate(), YIELD_MAX_MS);
    this.mergingPaused = false;
    this.checkpoint('TRUNCATE');
  }

  /** Ends the writing; a job ended before `finish` turns the index's automatic merging back on. */
  close(): void {
    if (!this.db.open) return;
    if (this.mergingPaused) {
      try {
        this.turns.mine(() => this.merging.resume(), YIELD_MAX_MS);
      } catch {
        // The store cannot write (the failure that ended the job): its next recovery does it.
      }
    }
    this.db.close();
  }

  /** Writes the batch's next CHUNK_EVENTS events (one more to keep a message whole); true once it is all written. */
  private applyChunk(batch: ParsedBatch): boolean {
    let end = Math.min(batch.written + CHUNK_EVENTS, batch.events.length);
    // A start goes with the event after it, so a message started and completed by the two is
    // written whole (ImportWriter.apply) instead of inserted and then completed.
    if (end < batch.events.length && batch.events[end - 1]?.kind === 'message.started') end += 1;
    const chunk = batch.events.slice(batch.written, end);
    const applied = this.writer.apply(this.tally(batch.session), chunk, this.seqs[batch.session] ?? 0, {
      bulk: true,
    });
    batch.written += chunk.length;
    this.uncheckpointed += chunk.length;
    this.turns.wrote(chunk.length);
    this.seqs[batch.session] = applied.seq;
    if (applied.stopped) this.stopped[batch.session] = true;
    return batch.written >= batch.events.length;
  }

  private tally(session: number): SessionTally {
    const tally = this.tallies[session];
    if (!tally) throw new Error(`The import has no session ${session}.`);
    return tally;
  }
}
