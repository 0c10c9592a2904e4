import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { openRaw } from './database';
import { importThreadWriting } from './turn-slots';

/** What the checkpointing thread is started with (its `workerData`). */
export interface CheckpointJob {
  file: string;
  nativeBinding?: string;
  /** Int32 slot 0 set to 1 once the thread's connection is closed (CheckpointThread.close). */
  closed: SharedArrayBuffer;
  /** The store's write turns (write-turns.ts): whether an import's writing thread has a job. */
  writeTurns: SharedArrayBuffer;
}

/**
 * Checkpoints one request makes at most: each copies what the store's connection appended during
 * the one before, until one finds nothing new. The WAL is then whole in the database, and the
 * connection's next write starts it over from its beginning; a WAL never found whole is never
 * rewound and grows for as long as the connection writes.
 */
const CATCH_UP_ROUNDS = 4;

/**
 * When the last round still found new frames (the connection writes on), the thread looks again
 * after this long (ms), asked or not, until it finds the WAL quiet.
 */
const LOOK_AGAIN_MS = 250;

/** Main thread -> checkpointing thread. */
export type CheckpointRequest = { type: 'checkpoint' } | { type: 'close' };

/**
 * The checkpointing thread's work: a connection of its own that copies the WAL into the database
 * (PASSIVE: it never takes the write lock, so the store's connection commits meanwhile) each time
 * it is asked, requests that came meanwhile counted as one, until it has caught up
 * (CATCH_UP_ROUNDS, LOOK_AGAIN_MS). The store's connection makes no checkpoint of its own while
 * this thread runs (write-turns.ts). While an import's writing thread has a job, this thread
 * stops looking: that thread checkpoints what it writes itself, between its transactions, and
 * copies made here too would only take the cores and the disk from it and from the live run. A
 * checkpoint that fails (a busy or full disk) is left for the next request.
 */
export function runCheckpointJob(port: MessagePort, job: CheckpointJob): void {
  const closed = new Int32Array(job.closed);
  const db = openRaw(job.file, { nativeBinding: job.nativeBinding });
  db.pragma('wal_autocheckpoint = 0');
  let again: NodeJS.Timeout | null = null;
  const end = () => {
    if (again) clearTimeout(again);
    if (db.open) db.close();
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    port.close();
  };
  const checkpoint = () => {
    if (again) clearTimeout(again);
    again = null;
    if (!db.open) return;
    let quiet = false;
    try {
      let lastLog = -1;
      for (let round = 0; round < CATCH_UP_ROUNDS && !quiet; round++) {
        const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number }>;
        // Another checkpoint under way (an import's thread) is as good as this one.
        quiet = !result || result.busy !== 0 || result.log === lastLog;
        lastLog = result?.log ?? -1;
      }
    } catch {
      // Left for the next look.
    }
    if (!quiet && !importThreadWriting(job.writeTurns)) again = setTimeout(checkpoint, LOOK_AGAIN_MS);
  };
  port.on('message', (first: CheckpointRequest) => {
    let request: CheckpointRequest | undefined = first;
    let close = false;
    // Requests already waiting are one checkpoint (or the close after them).
    while (request) {
      if (request.type === 'close') close = true;
      request = receiveMessageOnPort(port)?.message as CheckpointRequest | undefined;
    }
    if (close) end();
    else checkpoint();
  });
}
