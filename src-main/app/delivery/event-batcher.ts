import type { Delivered } from '@shared/contract';
import { addressedTo, type EventClient } from './event-client';
import type { EventHub } from './event-hub';

/** Events go to a surface in batches at most once per this many milliseconds (about one frame). */
export const FLUSH_MS = 16;

export interface ForwardOptions {
  /** The surface's client: it gets run events only of the sessions it watches. None: everything. */
  client?: EventClient;
  /**
   * False holds events back (a socket before its hello): the surface catches up on them by
   * replay, so delivery resumes after them.
   */
  accept?: () => boolean;
}

/**
 * Forwards hub events to one surface (a window, a socket) in per-frame batches, in seq order.
 * Events for other clients are left out, each run of them marked by one `events.skipped`, so the
 * surface's gap check stays exact. Progress goes out at once: a long import runs synchronously
 * and timers wait for its end. Returns the unsubscribe function.
 */
export function forwardInBatches(
  hub: EventHub,
  deliver: (events: Delivered[]) => void,
  options: ForwardOptions = {},
): () => void {
  const { client, accept } = options;
  /** The last seq the surface has, or has no need of. */
  let cursor = hub.lastSeq;
  let pending: Delivered[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const last = pending.at(-1);
    if (!last) return;
    const events = addressedTo(null, pending, cursor);
    cursor = last.seq;
    pending = [];
    deliver(events);
  };
  const unsubscribe = hub.onDidEmit((event) => {
    if (accept && !accept()) {
      cursor = event.seq;
      return;
    }
    if (client && !client.wants(event)) return;
    pending.push(event);
    if (event.channel === 'task.progress') flush();
    else timer ??= setTimeout(flush, FLUSH_MS);
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
