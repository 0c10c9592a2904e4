import type { Delivered } from '@shared/contract';
import type { EventHub } from './event-hub';

/** Events go to a surface in batches at most once per this many milliseconds (about one frame). */
export const FLUSH_MS = 16;

/**
 * Forwards hub events to one surface (a window, a socket) in per-frame batches, in seq order.
 * Progress goes out at once: a long import runs synchronously and timers wait for its end.
 * `accept` can hold events back (a socket before its hello). Returns the unsubscribe function.
 */
export function forwardInBatches(
  hub: EventHub,
  deliver: (events: Delivered[]) => void,
  accept: () => boolean = () => true,
): () => void {
  let pending: Delivered[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const events = pending;
    pending = [];
    deliver(events);
  };
  const unsubscribe = hub.onDidEmit((event) => {
    if (!accept()) return;
    pending.push(event);
    if (event.channel === 'task.progress') flush();
    else timer ??= setTimeout(flush, FLUSH_MS);
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
