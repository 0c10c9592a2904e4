/**
 * The Int32 slots of the shared memory behind the store's write turns (write-turns.ts), read by
 * every thread that shares them: the main thread, an import's writing thread, the checkpointing
 * thread (checkpoint-job.ts), which needs these and nothing else of write-turns.ts.
 */
export const MAIN = 0;
export const THREAD = 1;
/** Writing threads with a job (set and cleared by the main thread: ImportWriteThread). */
export const IMPORTING = 2;
/** Events the writing thread has written, counted at each of its chunks (wraps at 2^32). */
export const WRITTEN = 3;
export const SLOTS = 4;

/** Whether an import's writing thread has a job (importThreadStarted), from any thread. */
export function importThreadWriting(shared: SharedArrayBuffer): boolean {
  return Atomics.load(new Int32Array(shared), IMPORTING) > 0;
}
