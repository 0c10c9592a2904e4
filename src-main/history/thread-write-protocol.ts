import type { ImportStoreFile } from './ports';

/** What the writing thread writes (its `start` request). */
export interface WriteJob {
  store: ImportStoreFile;
  /** The sessions the main thread began (ImportInProgress), in the order of the parsing thread's. */
  sessions: Array<{ id: string; createdAt: number }>;
}

/**
 * Main thread -> writing thread: `start` (the job: the thread is started before the sessions are
 * begun, so its code loads while the file's first events are read), `events` (the parsing
 * thread's batch, passed on as it came), then `finish` once every batch was sent (with the file's
 * hash, stored on every session); `close` at any point ends the thread without writing more
 * (what it committed stays for the main thread to delete).
 */
export type WriteRequest =
  | { type: 'start'; job: WriteJob }
  /** `events`: the batch's bytes (event-batch-text.ts), transferred. */
  | { type: 'events'; session: number; events: Uint8Array; done: number }
  | { type: 'finish'; sourceHash: string }
  | { type: 'close' };

/**
 * Writing thread -> main thread: `written` after each commit (the batches it held, and the
 * progress of the last), `finished` after the last transaction (every session ended and
 * released), or `failed`, after which it writes nothing.
 */
export type WriteReport =
  | { type: 'written'; batches: number; done: number }
  | { type: 'finished' }
  | { type: 'failed'; message: string };
