import { Worker } from 'node:worker_threads';
import { TransferError } from '../transfer-error';
import type { ParseJob, ParseReport, PullRequest } from './protocol';
import { parseWorkerEntry } from './worker-entry';

type Waiter = { resolve: (report: ParseReport) => void; reject: (error: Error) => void };

/**
 * The thread's young generation, MB. Parsing makes short-lived garbage at a high rate; V8's
 * default lets the young generation grow to several times this, which showed as 20 to 40 MB more
 * resident memory during a large import and no faster parsing.
 */
const YOUNG_GENERATION_MB = 16;

/**
 * The main thread's handle on one parsing thread: reports arrive in order through `next()`;
 * `pull()` asks for the next batch. If the thread cannot start, runs out of its heap or dies,
 * the pending and every later `next()` reject with a TransferError: the import fails, it never
 * falls back to parsing untrusted input on the main thread.
 */
export class ParseWorker {
  private readonly reports: ParseReport[] = [];
  private waiter: Waiter | null = null;
  private failure: Error | null = null;
  private settled = false;

  private constructor(
    private readonly worker: Worker,
    private readonly heapMb: number,
  ) {
    worker.on('message', (report: ParseReport) => this.deliver(report));
    worker.on('error', (error: Error & { code?: string }) => this.fail(this.describe(error)));
    worker.on('exit', (code) => {
      if (!this.settled) {
        this.fail(
          new TransferError(
            'unavailable',
            `The import's parsing thread stopped before it finished (exit code ${code}).`,
          ),
        );
      }
    });
  }

  static async start(job: ParseJob, entry?: URL | string): Promise<ParseWorker> {
    let worker: Worker;
    try {
      worker = new Worker(entry ?? (await parseWorkerEntry()), {
        workerData: job,
        resourceLimits: {
          maxOldGenerationSizeMb: job.limits.workerHeapMb,
          maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        },
      });
    } catch (error) {
      throw new TransferError(
        'unavailable',
        `The import could not start its parsing thread: ${reason(error)}`,
        {
          cause: error,
        },
      );
    }
    return new ParseWorker(worker, job.limits.workerHeapMb);
  }

  /** The next report, in order. Rejects once the thread has failed. */
  next(): Promise<ParseReport> {
    const report = this.reports.shift();
    if (report) return Promise.resolve(report);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Asks for the next batch, of at most `maxEvents` events. */
  pull(maxEvents: number): void {
    if (this.failure) return;
    const request: PullRequest = { type: 'pull', maxEvents };
    this.worker.postMessage(request);
  }

  /** Stops the thread (it holds open files and memory until then). */
  async close(): Promise<void> {
    this.settled = true;
    await this.worker.terminate();
  }

  private deliver(report: ParseReport): void {
    if (report.type === 'failed' || (report.type === 'batch' && report.last)) this.settled = true;
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter.resolve(report);
    else this.reports.push(report);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.settled = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(error);
  }

  private describe(error: Error & { code?: string }): TransferError {
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new TransferError(
        'too-large',
        `Importing this file needs more than the ${this.heapMb} MB of memory an import may use.`,
        { cause: error },
      );
    }
    return new TransferError('unavailable', `The import's parsing thread failed: ${reason(error)}`, {
      cause: error,
    });
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
