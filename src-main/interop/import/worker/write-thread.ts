import { Worker } from 'node:worker_threads';
import { TransferError } from '../transfer-error';
import { writeWorkerEntry } from './worker-entry';
import {
  eventBatchTransfer,
  importThreadStarted,
  threadTurnEnded,
  type WriteJob,
  type WriteReport,
  type WriteRequest,
} from '../../../history';

type Waiter = { resolve: (report: WriteReport) => void; reject: (error: Error) => void };

/**
 * The main thread's handle on an import's writing thread (write-worker.ts): `begin` gives it its
 * job, `write` passes a batch on, `next()` gives its reports in order. If the thread cannot start, fails or dies,
 * the pending and every later `next()` reject: the import fails (and the main thread deletes
 * what was written). `close()` ends the thread and resolves once its connection is closed, so
 * the store's own connection can delete at once.
 */
export class ImportWriteThread {
  private readonly reports: WriteReport[] = [];
  private waiter: Waiter | null = null;
  private failure: Error | null = null;
  private readonly exited: Promise<void>;
  private gone = false;
  /** Batches sent and not yet reported written. */
  inFlight = 0;

  private constructor(private readonly worker: Worker) {
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.gone = true;
        resolve();
      }),
    );
    worker.on('message', (report: WriteReport) => this.deliver(report));
    worker.on('error', (error: Error) => this.fail(error));
    worker.on('exit', (code) =>
      this.fail(new Error(`The import's writing thread stopped before it finished (exit code ${code}).`)),
    );
  }

  /**
   * Starts a writing thread with no job yet (`begin` gives it one), so its code loads while the
   * import reads the file's first events.
   */
  static async boot(entry?: URL | string): Promise<ImportWriteThread> {
    try {
      return new ImportWriteThread(new Worker(entry ?? (await writeWorkerEntry())));
    } catch (error) {
      throw new TransferError(
        'unavailable',
        `The import could not start its writing thread: ${reason(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /** The thread's job: it opens its connection and writes what `write` sends from then on. */
  begin(job: WriteJob): void {
    // Counted once, and uncounted when the thread exits (a thread already gone has no turn).
    if (!this.gone) {
      importThreadStarted(job.store.writeTurns);
      this.worker.once('exit', () => threadTurnEnded(job.store.writeTurns));
    }
    this.send({ type: 'start', job });
  }

  /** Passes a batch on, its bytes transferred (`events` is empty here after). */
  write(session: number, events: Uint8Array, done: number): void {
    this.send({ type: 'events', session, events, done }, eventBatchTransfer(events));
    this.inFlight += 1;
  }

  /** Ends every session, storing the file's hash on each (see SessionQueries.findImport). */
  finish(sourceHash: string): void {
    this.send({ type: 'finish', sourceHash });
  }

  /** The next report, in order; `written` ones lower `inFlight`. Rejects once the thread failed. */
  async next(): Promise<WriteReport> {
    const report = this.reports.shift() ?? (await this.wait());
    if (report.type === 'failed') throw new Error(`The import's writing thread failed: ${report.message}`);
    if (report.type === 'written') this.inFlight -= report.batches;
    return report;
  }

  /** Ends the thread (without writing more) and waits until it is gone. */
  async close(): Promise<void> {
    if (!this.failure) this.send({ type: 'close' });
    // A thread busy in a transaction answers once it commits (TRANSACTION_MS); one that does not
    // answer at all is stopped, which rolls back what it had not committed.
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private send(request: WriteRequest, transfer?: ArrayBuffer[]): void {
    if (this.failure) return;
    this.worker.postMessage(request, transfer);
  }

  private wait(): Promise<WriteReport> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private deliver(report: WriteReport): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter.resolve(report);
    else this.reports.push(report);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(error);
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
