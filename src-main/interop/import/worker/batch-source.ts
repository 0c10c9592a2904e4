import type { ImportedEvent } from '../../../history/ports';
import type { EventBatch } from './protocol';

/** Where the parsing thread's batches come from, one per pull. */
export interface BatchSource {
  next(maxEvents: number): EventBatch;
  close(): void;
}

/** The approximate JSON size at which a batch is cut before it has `maxEvents` events. */
export const BATCH_CHARS = 256 * 1024;

/**
 * Up to `maxEvents` events from `events`, cut early once their JSON passes BATCH_CHARS, as the
 * JSON text of the batch; `ended` when the iterator has no more.
 */
export function takeEvents(
  events: Iterator<ImportedEvent>,
  maxEvents: number,
): { json: string; count: number; ended: boolean } {
  const parts: string[] = [];
  let chars = 0;
  while (parts.length < Math.max(1, maxEvents) && chars < BATCH_CHARS) {
    const step = events.next();
    if (step.done) return { json: `[${parts.join(',')}]`, count: parts.length, ended: true };
    const json = JSON.stringify(step.value);
    parts.push(json);
    chars += json.length;
  }
  return { json: `[${parts.join(',')}]`, count: parts.length, ended: false };
}
