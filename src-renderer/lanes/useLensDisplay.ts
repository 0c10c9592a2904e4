import { onScopeDispose, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type { SessionDisplay } from '../session/display';

export interface LensDisplaySource {
  /** The session's display at the playhead (a new object every live frame). */
  display: Ref<SessionDisplay | null>;
  /**
   * The lanes model: triggered (triggerRef in the lanes store) when a row, busy span, lane or the
   * first error changed, though it stays the same object.
   */
  model: Readonly<Ref<unknown>>;
  /** True while the playhead follows the end of a live log. */
  following: Ref<boolean>;
  /** Longest time a display that only moved streaming text waits before the lens draws it. */
  intervalMs: number;
}

/**
 * The display the sequence lens draws. While the playhead follows a live run and the events since
 * the last draw only streamed text (the same rows, bars, lanes and messages shown), the lens takes
 * the newest display at most once per `intervalMs`, and the last one always within it, as the
 * graph does with its streaming tails; a frame in between then costs the lens no rendering.
 * Anything else is taken at once: a new row, bar or lane, a message appearing or completing, a
 * status change, a seek or a replay step.
 */
export function useLensDisplay(source: LensDisplaySource): ShallowRef<SessionDisplay | null> {
  const { display, model, following, intervalMs } = source;
  const shown = shallowRef<SessionDisplay | null>(display.value);
  /** Whether the model changed since the display shown was taken. */
  let modelChanged = false;
  let shownAt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function take(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    shown.value = display.value;
    modelChanged = false;
    shownAt = performance.now();
  }

  /** True when `next` differs from `current` in more than the text still streaming. */
  function differs(next: SessionDisplay | null, current: SessionDisplay | null): boolean {
    if (!next || !current) return next !== current;
    return (
      next.lastSeq < current.lastSeq ||
      next.visibleCount !== current.visibleCount ||
      next.status !== current.status ||
      next.headStatus !== current.headStatus ||
      Object.keys(next.inFlight).length !== Object.keys(current.inFlight).length ||
      !sameAgents(next.agents, current.agents)
    );
  }

  // The model is the same object when it grows, so the getter returns a new token for each trigger.
  watch(
    () => ({ model: model.value }),
    () => (modelChanged = true),
    { flush: 'sync' },
  );
  watch([display, following, () => ({ model: model.value })], () => {
    if (!following.value || modelChanged || differs(display.value, shown.value)) return take();
    if (display.value === shown.value) return;
    const wait = shownAt + intervalMs - performance.now();
    if (wait <= 0) return take();
    timer ??= setTimeout(take, wait);
  });
  onScopeDispose(() => {
    if (timer !== null) clearTimeout(timer);
  });
  return shown;
}

function sameAgents(a: SessionDisplay['agents'], b: SessionDisplay['agents']): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((name) => a[name] === b[name]);
}
