import type { RunEvent } from '@shared/domain';
import type { SessionLoader } from './session-loading';
import { useSessionDisplayStore } from './session-display-store';
import { useSessionInfoStore } from './session-info-store';
import { useSessionLogStore } from './session-log-store';

/** Milliseconds before a heal asks again when the store has not written the missing events yet. */
const HEAL_RETRY_MS = 150;

/**
 * Live events of the open session, applied to its timeline once per animation frame (for a
 * session read in windows, to its head and window at once, drawn once per frame).
 */
export interface LiveEvents {
  /** Queues events that arrived for the open session and asks for a frame (not while loading). */
  receive(events: readonly RunEvent[]): void;
  /** Applies the queued events to the timeline now. */
  flush(): void;
  /** Drops the queued events (a new session is opened or the view closes). */
  clear(): void;
}

/** Applies events to the session stores (info, log, display), which must be active. */
export function createLiveEvents(loader: SessionLoader): LiveEvents {
  const info = useSessionInfoStore();
  const log = useSessionLogStore();
  const playback = useSessionDisplayStore();
  let pending: RunEvent[] = [];
  let frameRequested = false;
  let healing = false;
  let healRetry: ReturnType<typeof setTimeout> | null = null;

  /** Coalesces redraws into one per animation frame. */
  function requestFrame(): void {
    if (frameRequested) return;
    frameRequested = true;
    requestAnimationFrame(() => {
      frameRequested = false;
      flush();
      playback.computeDisplay();
    });
  }

  function flush(): void {
    if (healing || pending.length === 0) return;
    const batch = pending;
    pending = [];
    if (log.windowed) {
      loader.receiveWindowed(batch);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const result = log.timeline.append(batch[i] as RunEvent);
      if (result === 'gap') {
        pending = batch.slice(i);
        void heal();
        break;
      }
    }
    log.timelineGrew();
  }

  /** Re-reads the events after the last one held from the store (a gap or reorder was seen). */
  async function heal(): Promise<void> {
    if (healing || !info.sessionId) return;
    healing = true;
    const id = info.sessionId;
    try {
      await loader.loadEvents(id, info.currentGeneration());
    } finally {
      healing = false;
    }
    pending = pending.filter((event) => event.seq > log.timeline.lastSeq);
    const first = pending[0];
    if (first && first.seq !== log.timeline.lastSeq + 1 && !healRetry) {
      // The store has not written the missing events yet: try again shortly.
      healRetry = setTimeout(() => {
        healRetry = null;
        void heal();
      }, HEAL_RETRY_MS);
    }
    requestFrame();
  }

  function receive(events: readonly RunEvent[]): void {
    if (log.windowed && !info.loading) {
      // A long session is never held whole: its head (and a window at the end) takes them.
      loader.receiveWindowed(events);
      requestFrame();
      return;
    }
    for (const event of events) pending.push(event);
    if (!info.loading) requestFrame();
  }

  function clear(): void {
    pending = [];
  }

  return { receive, flush, clear };
}
