import type { ImportedEvent, ImportedSessionMeta } from '../../ports';
import type { ImportFormat } from '../detect';
import type { ImportLimits } from '../limits';
import type { TransferErrorCode } from '../transfer-error';

/** What the parsing thread is started with (its `workerData`). */
export interface ParseJob {
  path: string;
  /** The file's modification time, epoch ms: the session time of formats that record none. */
  fileTime: number;
  limits: ImportLimits;
}

/** Main thread -> parsing thread: send the next batch, of at most `maxEvents` events. */
export interface PullRequest {
  type: 'pull';
  maxEvents: number;
}

/** One session of the file, as pass one counted it. */
export interface PlannedSession {
  meta: ImportedSessionMeta;
  messageCount: number;
  eventCount: number;
}

/**
 * Parsing thread -> main thread. First `read` reports while the whole file is checked; then
 * `planned` (nothing is written before it) with at least one session; then one `batch` per
 * `pull`, the last flagged. A batch holds events of one session (`session`, an index into
 * `planned.sessions`); sessions come in order. A `failed` can come at any point and ends the job.
 */
export type ParseReport =
  | { type: 'read'; bytes: number }
  | { type: 'planned'; format: ImportFormat; sessions: PlannedSession[] }
  | { type: 'batch'; session: number; events: ImportedEvent[]; last: boolean }
  | { type: 'failed'; code: TransferErrorCode | 'internal'; message: string };
