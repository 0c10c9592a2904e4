import type { RunEvent } from '@shared/domain';
import type { SessionLoader } from './session-loading';
import { computeDisplay, type OpenSessionState } from './session-state';

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

export function createLiveEvents(state: OpenSessionState, loader: SessionLoader): LiveEvents {
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
      computeDisplay(state);
    });
  }

  function flush(): void {
    if (healing || pending.length === 0) return;
    const batch = pending;
    pending = [];
    if (state.windowed.value) {
      loader.receiveWindowed(batch);
      state.version.value += 1;
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const result = state.timeline.append(batch[i] as RunEvent);
      if (result === 'gap') {
        pending = batch.slice(i);
        void heal();
        break;
      }
    }
    state.version.value += 1;
  }

  /** Re-reads the events after the last one held from the store (a gap or reorder was seen). */
  async function heal(): Promise<void> {
    if (healing || !state.sessionId.value) return;
    healing = true;
    const id = state.sessionId.value;
    try {
      await loader.loadEvents(id, state.openGeneration);
    } finally {
      healing = false;
    }
    pending = pending.filter((event) => event.seq > state.timeline.lastSeq);
    const first = pending[0];
    if (first && first.seq !== state.timeline.lastSeq + 1 && !healRetry) {
      // The store has not written the missing events yet: try again shortly.
      healRetry = setTimeout(() => {
        healRetry = null;
        void heal();
      }, HEAL_RETRY_MS);
    }
    requestFrame();
  }

  function receive(events: readonly RunEvent[]): void {
    if (state.windowed.value && !state.loading.value) {
      // A long session is never held whole: its head (and a window at the end) takes them.
      loader.receiveWindowed(events);
      state.version.value += 1;
      requestFrame();
      return;
    }
    for (const event of events) pending.push(event);
    if (!state.loading.value) requestFrame();
  }

  function clear(): void {
    pending = [];
  }

  return { receive, flush, clear };
}
