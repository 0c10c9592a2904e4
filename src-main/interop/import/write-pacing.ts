/**
 * How many events the next batch of an import should carry, so that writing it takes about
 * `BATCH_TARGET_MS` on this machine and the event loop answers other requests in between.
 * Measured per batch, because the cost per event varies with the disk, the content and the load.
 */
export const BATCH_TARGET_MS = 25;
export const FIRST_BATCH_EVENTS = 100;
export const MIN_BATCH_EVENTS = 10;
export const MAX_BATCH_EVENTS = 8000;

export function nextBatchEvents(current: number, written: number, tookMs: number): number {
  if (written === 0) return current;
  const perEvent = Math.max(tookMs, 0.01) / written;
  // Halfway between the current size and the ideal one: a slow batch (a checkpoint, a GC pause)
  // shrinks the next without swinging the size back and forth.
  const ideal = BATCH_TARGET_MS / perEvent;
  const next = Math.round((current + ideal) / 2);
  return Math.min(MAX_BATCH_EVENTS, Math.max(MIN_BATCH_EVENTS, next));
}
