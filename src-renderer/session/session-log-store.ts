import { defineStore } from 'pinia';
import { markRaw, ref, shallowRef, triggerRef } from 'vue';
import type { ViewState } from '@shared/domain';
import type { MessageLog } from './message-log';
import { Timeline } from './timeline';

/**
 * Sessions with more events than this are never read whole: the renderer holds a window of the
 * log around the playhead. Smaller ones load whole behind the first draw.
 */
export const FULL_LOG_LIMIT = 10_000;

/**
 * What the renderer holds of the open session's event log. The timelines grow in place and are
 * never deeply reactive (a long log would cost a proxy per event): they sit in shallow refs, and
 * whoever appends to one calls `timelineGrew` or `windowGrew`, so views reading them through
 * `currentLog`, `currentReplay` or `timeline` re-read them.
 */
export const useSessionLogStore = defineStore('session-log', () => {
  /** The whole event log, for sessions of at most FULL_LOG_LIMIT events (empty for longer ones). */
  const timeline = shallowRef<Timeline>(markRaw(new Timeline()));
  /**
   * Set while the whole log is not in `timeline` (from the first draw until it has loaded, and
   * always for a long session): a window of the log starting at a seq, from the store's folded
   * view and a page of messages there, plus the events read after it.
   */
  const window = shallowRef<Timeline | null>(null);
  /** The store's view at the end of the log while there is a window (live events fold into it). */
  const head = shallowRef<ViewState | null>(null);
  /** True when the session is read in windows only (longer than FULL_LOG_LIMIT). */
  const windowed = ref(false);
  /** Events loaded so far while opening, for the progress line. */
  const loadedEvents = ref(0);

  /** Events were appended to `timeline` in place. */
  function timelineGrew(): void {
    triggerRef(timeline);
  }

  /** Events were appended to `window` (or folded into `head`) in place. */
  function windowGrew(): void {
    triggerRef(window);
    triggerRef(head);
  }

  /** The message list the transcript reads: the window's, else the whole log's. */
  function currentLog(): MessageLog {
    return (window.value ?? timeline.value).log;
  }

  /** What replay reads frames and times from: the window, else the whole log. */
  function currentReplay(): Timeline {
    return window.value ?? timeline.value;
  }

  /** Seq of the last event of the session as far as the view knows. */
  function endSeq(): number {
    return window.value && head.value ? head.value.seq : timeline.value.lastSeq;
  }

  /** Holds nothing: an empty timeline and no window. */
  function reset(): void {
    timeline.value = markRaw(new Timeline());
    window.value = null;
    head.value = null;
    windowed.value = false;
    loadedEvents.value = 0;
  }

  return {
    timeline,
    window,
    head,
    windowed,
    loadedEvents,
    timelineGrew,
    windowGrew,
    currentLog,
    currentReplay,
    endSeq,
    reset,
  };
});
