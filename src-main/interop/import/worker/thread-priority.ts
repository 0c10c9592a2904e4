import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of an import's parsing thread (0 is normal; 19 the lowest). */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's scheduling priority to BACKGROUND_NICE (unless it is lower), where the system lets one
 * thread do so (Linux: `/proc/thread-self` names the thread, and a nice value belongs to each
 * thread); elsewhere it does nothing. For work nobody waits on from one moment to the next (an
 * import's parsing): on a machine whose cores are all busy, the threads that hold the store's
 * write lock or answer the user (the main thread's live commits, its event loop, the import's
 * writing thread that a live commit may wait for) run first. An unprivileged thread cannot raise
 * its priority again, so only a thread that stays in the background for its whole life calls
 * this. Returns whether it did.
 */
export function runInBackground(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // A process started lower already (nice) stays as low: a thread may not raise its own.
    if (getPriority(tid) < BACKGROUND_NICE) setPriority(tid, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
