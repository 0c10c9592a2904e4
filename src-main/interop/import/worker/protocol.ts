import type { ImportedSessionMeta } from '../../../history/ports';
import type { ImportFormat } from '../detect';
import type { ImportLimits } from '../limits';
import type { TransferErrorCode } from '../transfer-error';

/** What the parsing thread is started with (its `workerData`). */
export interface ParseJob {
  path: string;
  /** The file's size in bytes when the import began: the scale of progress. */
  size: number;
  /** The file's modification time, epoch ms: the session time of formats that record none. */
  fileTime: number;
  limits: ImportLimits;
}

/** Main thread -> parsing thread: send the next batch, of at most `maxEvents` events. */
export interface PullRequest {
  type: 'pull';
  maxEvents: number;
}

/** One session of the file. */
export interface PlannedSession {
  meta: ImportedSessionMeta;
}

/** One batch of converted events, all of one session. */
export interface EventBatch {
  type: 'batch';
  /** An index into `planned.sessions`; sessions come in order. */
  session: number;
  /**
   * The events (`ImportedEvent[]`) as the UTF-8 bytes of their JSON text (encodeEventBatch), whose
   * buffer is transferred: one buffer crosses between threads far more cheaply than many small
   * objects (structured clone) or a string (copied in and out of each thread's heap), and
   * JSON.parse builds them fast.
   */
  events: Uint8Array;
  count: number;
  /** Progress once this batch is written, in bytes of the file (0 to `ParseJob.size`). */
  done: number;
  /** Set on the last batch of each session: the messages it holds. */
  messageCount: number | null;
  /** The last batch of the last session. */
  last: boolean;
}

/**
 * Parsing thread -> main thread: `planned` (at least one session) and then one `batch` per
 * `pull`, the last flagged. Most files are read and checked whole before `planned`, with `read`
 * reports meanwhile, so bad input never reaches the store. Our own export (see
 * fleetscope-stream.ts) is checked as it streams: `planned` comes after its header, and a
 * refusal can come after batches were written, which the main thread then deletes. A `failed`
 * can come at any point and ends the job.
 */
export type ParseReport =
  | { type: 'read'; bytes: number }
  | { type: 'planned'; format: ImportFormat; sessions: PlannedSession[] }
  | EventBatch
  | { type: 'failed'; code: TransferErrorCode | 'internal'; message: string };

/** The parsing thread's end of the channel (its `parentPort`). */
export interface JobPort {
  postMessage(report: ParseReport, transfer?: ArrayBuffer[]): void;
  on(event: 'message', listener: (request: PullRequest) => void): unknown;
}
