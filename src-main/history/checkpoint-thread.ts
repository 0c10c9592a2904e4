import { Worker } from 'node:worker_threads';
import type { CheckpointJob, CheckpointRequest } from './checkpoint-job';

/** The most often the checkpointing thread is asked to copy the WAL (ms). */
export const CHECKPOINT_EVERY_MS = 250;

/** The longest `close` waits for the thread's connection to close (ms). */
const CLOSE_WAIT_MS = 2_000;

/** Where the checkpointing thread's code is (see interop/import/worker/worker-entry.ts). */
async function checkpointWorkerEntry(): Promise<URL | string> {
  if (import.meta.url.endsWith('.ts'))
    return new URL('./worker/checkpoint-worker.source.mjs', import.meta.url);
  const bundled = await import('./worker/checkpoint-worker?modulePath');
  return bundled.default;
}

/**
 * The store's checkpoints on a thread of their own (checkpoint-job.ts). SQLite otherwise copies
 * the WAL into the database inside the commit that passes 1,000 pages, on the main thread, with
 * its fsyncs. Measured with a live run alone (4 events every 16 ms for 30 s, the bench's child
 * test/bench/import-stall-child.mjs): those commits were its longest and set its p99, 11.0 and
 * 6.9 ms; with the copies made here, 4.8 and 1.2 ms, and the WAL at most 3.2 MB (4.2 MB before).
 * `start` resolves once the thread runs (null if it cannot start: the connection then keeps
 * checkpointing itself); `request` asks for a copy, at most every CHECKPOINT_EVERY_MS; `close`
 * waits (blocking, briefly) until the thread's connection is closed, so the store's own close is
 * the last and removes the WAL.
 */
export class CheckpointThread {
  private lastRequest = -Infinity;
  private ended = false;

  private constructor(
    private readonly worker: Worker,
    private readonly closed: SharedArrayBuffer,
  ) {
    worker.unref();
    const gone = () => {
      this.ended = true;
    };
    worker.once('exit', gone);
    worker.once('error', gone);
  }

  static async start(
    file: string,
    writeTurns: SharedArrayBuffer,
    nativeBinding?: string,
  ): Promise<CheckpointThread | null> {
    try {
      const entry = await checkpointWorkerEntry();
      const closed = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
      const job: CheckpointJob = { file, nativeBinding, closed, writeTurns };
      return new CheckpointThread(new Worker(entry, { workerData: job }), closed);
    } catch {
      return null;
    }
  }

  /** Whether the thread still runs (it ends on `close`, or if it fails). */
  running(): boolean {
    return !this.ended;
  }

  /** Asks for a checkpoint, unless one was asked for within CHECKPOINT_EVERY_MS. */
  request(now = performance.now()): void {
    if (this.ended || now - this.lastRequest < CHECKPOINT_EVERY_MS) return;
    this.lastRequest = now;
    this.send({ type: 'checkpoint' });
  }

  /** Closes the thread's connection, waiting for it at most CLOSE_WAIT_MS. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.send({ type: 'close' });
    const closed = new Int32Array(this.closed);
    const until = performance.now() + CLOSE_WAIT_MS;
    while (Atomics.load(closed, 0) === 0) {
      const left = until - performance.now();
      if (left <= 0) break;
      try {
        Atomics.wait(closed, 0, 0, left);
      } catch {
        break; // A thread that may not block (some embedders' main threads): the WAL stays.
      }
    }
    void this.worker.terminate();
  }

  private send(request: CheckpointRequest): void {
    this.worker.postMessage(request);
  }
}
