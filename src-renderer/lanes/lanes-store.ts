import { defineStore, storeToRefs } from 'pinia';
import { markRaw, onScopeDispose, ref, shallowRef, triggerRef, watch } from 'vue';
import { useSessionStore } from '../session/session-store';
import type { FirstError, Wait } from './activity';
import { LanesModel } from './lanes-model';

/** Waits shown in the session header. */
const WAITS_SHOWN = 3;
/** While a run is live, the header's waits are worked out again at most this often. */
const INSIGHT_INTERVAL_MS = 1000;

/**
 * The sequence lens's model of the open session, shared by the lens and the session header (its
 * waits and first error). It follows what the session store replays from: the whole log, or, for
 * a long session and while a short one's log loads, the window of the log around the playhead
 * (`getReplay()`). A new window (a seek outside the last one) gets a model of its own, built from
 * the window alone, so opening or seeking never waits for the rest of the log; live events extend
 * the model of the end.
 */
export const useLanesStore = defineStore('lanes', () => {
  const session = useSessionStore();
  const { loadedEvents, sessionId, windowed } = storeToRefs(session);
  /**
   * The model the lens draws now: a plain object (a million rows are not made reactive), so when
   * it grows in place the store triggers this ref (triggerRef) and whatever reads it updates.
   */
  const model = shallowRef<LanesModel | null>(null);
  const waits = shallowRef<Wait[]>([]);
  const firstError = shallowRef<FirstError | null>(null);
  /**
   * What the header's waits and first error cover: the whole session, or (read in windows) only
   * the stretch of the log the window holds.
   */
  const insightsScope = ref<'session' | 'window'>('session');
  let insightTimer: ReturnType<typeof setTimeout> | null = null;
  let insightsAt = 0;

  /** Lenses on screen: rows are built only while one is (busy time always, for the header). */
  const viewers = ref(0);
  function show(): void {
    viewers.value += 1;
  }
  function hide(): void {
    viewers.value = Math.max(0, viewers.value - 1);
  }

  function sync(): void {
    if (sessionId.value === null) {
      // The view closed: let the model (and the timeline it holds) go.
      model.value = null;
      return;
    }
    const replay = session.getReplay();
    let current = model.value;
    if (current?.timeline !== replay) {
      current = markRaw(LanesModel.forTimeline(replay));
      model.value = current;
      waits.value = [];
      firstError.value = null;
      insightsScope.value = windowed.value ? 'window' : 'session';
      // Another session or window: its header is worked out at once, not after an interval.
      insightsAt = 0;
      if (insightTimer !== null) clearTimeout(insightTimer);
      insightTimer = null;
      current.ingest(viewers.value > 0);
      scheduleInsights();
      return;
    }
    if (current.ingest(viewers.value > 0)) {
      triggerRef(model);
      scheduleInsights();
    }
  }

  /** Works the header's waits out again, at most once per interval while events keep coming. */
  function scheduleInsights(): void {
    if (insightTimer !== null) return;
    const wait = Math.max(0, insightsAt + INSIGHT_INTERVAL_MS - performance.now());
    insightTimer = setTimeout(() => {
      insightTimer = null;
      insightsAt = performance.now();
      const current = model.value;
      if (!current) return;
      waits.value = current.activity.longestWaits(WAITS_SHOWN);
      firstError.value = current.activity.firstError;
    }, wait);
  }

  /** What the lens follows: the replay, and how far it reaches (it grows in place). */
  const replay = () => session.getReplay();
  const reach = () => session.getReplay().lastSeq;
  watch([replay, reach, loadedEvents, sessionId, viewers], sync, { immediate: true });
  onScopeDispose(() => {
    if (insightTimer !== null) clearTimeout(insightTimer);
  });

  return { model, waits, firstError, insightsScope, show, hide };
});
