import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { openRaw, type SqliteDatabase } from '../../database';
import { importTally, ImportWriter } from '../../import-writer';
import { Materializer, type SessionTally } from '../../materializer';
import { OwnerRecords } from '../../ownership';
import type { ImportedEvent } from '../../ports';
import type { WriteJob, WriteReport, WriteRequest } from './write-protocol';

/**
 * A transaction takes the batches already waiting until it has run this long. Short enough that
 * a live write on the main thread (which waits synchronously for the lock, see database.ts)
 * never waits long; long enough that commits are a small part of the work.
 */
export const TRANSACTION_MS = 100;

/**
 * The writing thread's work: the import's events written on a connection of its own, through the
 * same ImportWriter and Materializer as the store's connection, so the rows are the same. Each
 * transaction holds the batch that woke it and those already waiting, up to TRANSACTION_MS; the
 * lock is never held between messages. `finish` ends every session and releases it in one last
 * transaction. Any failure is reported and ends the writing; the main thread deletes what was
 * committed.
 */
export function runWriteJob(port: MessagePort, job: WriteJob): void {
  let writing: SessionsWriting;
  try {
    writing = new SessionsWriting(job);
  } catch (error) {
    post(port, failure(error));
    return;
  }
  let ended = false;
  const end = () => {
    ended = true;
    writing.close();
    port.close();
  };
  const handle = (request: WriteRequest) => {
    if (ended) return;
    try {
      switch (request.type) {
        case 'events': {
          const written = writing.write(request, () => receive(port));
          post(port, { type: 'written', batches: written.batches, done: written.done });
          if (written.next) handle(written.next);
          break;
        }
        case 'finish':
          writing.finish();
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

/** The sessions of one import, as the writing thread's connection writes them. */
class SessionsWriting {
  private readonly db: SqliteDatabase;
  private readonly writer: ImportWriter;
  private readonly owners: OwnerRecords;
  private readonly tallies: SessionTally[];
  private readonly seqs: number[];
  private readonly stopped: boolean[];

  constructor(private readonly job: WriteJob) {
    this.db = openRaw(job.store.file, { nativeBinding: job.store.nativeBinding });
    try {
      this.writer = new ImportWriter(this.db, new Materializer(this.db, job.store.checkpointInterval));
      this.owners = new OwnerRecords(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.tallies = job.sessions.map((session) => importTally(session.id, session.createdAt));
    this.seqs = job.sessions.map(() => 0);
    this.stopped = job.sessions.map(() => false);
  }

  /**
   * Writes `first` and the batches `receive` has waiting, in one transaction of at most about
   * TRANSACTION_MS; a request other than events that was taken is returned as `next`.
   */
  write(
    first: Extract<WriteRequest, { type: 'events' }>,
    receive: () => WriteRequest | undefined,
  ): { batches: number; done: number; next: WriteRequest | undefined } {
    const started = performance.now();
    let batches = 0;
    let done = first.done;
    let next: WriteRequest | undefined;
    const touched = new Set<number>();
    this.db.transaction(() => {
      let request = first;
      for (;;) {
        this.apply(request);
        touched.add(request.session);
        batches += 1;
        done = request.done;
        if (performance.now() - started >= TRANSACTION_MS) break;
        next = receive();
        if (next?.type !== 'events') break;
        request = next;
        next = undefined;
      }
      for (const session of touched) this.writer.commitBatch(this.tally(session));
    })();
    return { batches, done, next };
  }

  /** The last transaction: every session's ending (status, counters, open replies) and release. */
  finish(): void {
    this.db.transaction(() => {
      this.tallies.forEach((tally, index) => {
        this.writer.finish(tally, tally.createdAt, this.stopped[index] ?? false);
        this.owners.release(tally.id);
      });
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private apply(request: Extract<WriteRequest, { type: 'events' }>): void {
    const tally = this.tally(request.session);
    const applied = this.writer.apply(
      tally,
      JSON.parse(request.events) as ImportedEvent[],
      this.seqs[request.session] ?? 0,
      { bulk: true },
    );
    this.seqs[request.session] = applied.seq;
    if (applied.stopped) this.stopped[request.session] = true;
  }

  private tally(session: number): SessionTally {
    const tally = this.tallies[session];
    if (!tally) throw new Error(`The import has no session ${session}.`);
    return tally;
  }
}
