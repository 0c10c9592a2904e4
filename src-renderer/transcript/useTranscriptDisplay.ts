import { onScopeDispose, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type { SessionDisplay } from '../session/display';

export interface TranscriptDisplaySource {
  /** The session's display at the playhead (a new object every live frame). */
  display: Ref<SessionDisplay | null>;
  /** True while the playhead follows the end of a live log. */
  following: Ref<boolean>;
  /** Longest time a display that only grew streaming text waits before the transcript draws it. */
  intervalMs: number;
}

/**
 * The display the transcript draws. While the playhead follows a live run and the frames since
 * the last draw only grew the text of messages still streaming, the transcript takes the newest
 * display at most once per `intervalMs` (the last one always within it), so every streaming row
 * grows in the same frame: one re-render of the pane, one measurement of the rows and one pin to
 * the end per interval instead of some row's text in every frame. Anything else is taken at once:
 * a message appearing or completing, an agent's status, the session's status, a seek or a step.
 */
export function useTranscriptDisplay(source: TranscriptDisplaySource): ShallowRef<SessionDisplay | null> {
  const { display, following, intervalMs } = source;
  const shown = shallowRef<SessionDisplay | null>(display.value);
  let shownAt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function take(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    shown.value = display.value;
    shownAt = performance.now();
  }

  watch([display, following], () => {
    if (!following.value || !onlyTextGrew(display.value, shown.value)) return take();
    const wait = shownAt + intervalMs - performance.now();
    if (wait <= 0) return take();
    timer ??= setTimeout(take, wait);
  });
  onScopeDispose(() => {
    if (timer !== null) clearTimeout(timer);
  });
  return shown;
}

/**
 * True when `next` differs from `current` only in what messages still in flight in both say
 * (their text, tool calls, usage) and where the playhead is: the same messages shown, the same
 * messages in flight in the same state, the same agent statuses and session status.
 */
export function onlyTextGrew(next: SessionDisplay | null, current: SessionDisplay | null): boolean {
  if (!next || !current) return next === current;
  if (
    next.lastSeq < current.lastSeq ||
    next.visibleCount !== current.visibleCount ||
    next.status !== current.status ||
    next.headStatus !== current.headStatus ||
    next.pendingHuman !== null ||
    current.pendingHuman !== null
  )
    return false;
  const ids = Object.keys(next.inFlight);
  if (ids.length !== Object.keys(current.inFlight).length) return false;
  for (const id of ids) if (next.inFlight[id]?.state !== current.inFlight[id]?.state) return false;
  const names = Object.keys(next.agents);
  if (names.length !== Object.keys(current.agents).length) return false;
  return names.every((name) => next.agents[name] === current.agents[name]);
}
