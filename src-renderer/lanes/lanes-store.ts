import { defineStore, storeToRefs } from 'pinia';
import { markRaw, onScopeDispose, ref, shallowRef, watch } from 'vue';
import { useSessionStore } from '../stores/session';
import type { FirstError, Wait } from './activity';
import { LanesModel } from './lanes-model';

/** Waits shown in the session header. */
const WAITS_SHOWN = 3;
/** While a run is live, the header's waits are worked out again at most this often. */
const INSIGHT_INTERVAL_MS = 1000;

/**
 * The sequence lens's model of the open session, shared by the lens and the session header (its
 * waits and first error). It follows the session store: while a long log loads, the lens draws the
 * preview's page of messages and the timeline's events are taken in slice by slice behind it; then
 * the lens switches to the model of the whole timeline, which live events extend.
 */
export const useLanesStore = defineStore('lanes', () => {
  const session = useSessionStore();
  const { version, loadedEvents, sessionId } = storeToRefs(session);
  /** The model the lens draws now (the preview's, then the timeline's). */
  const model = shallowRef<LanesModel | null>(null);
  /** Bumped whenever the drawn model changed or grew. */
  const revision = ref(0);
  const waits = shallowRef<Wait[]>([]);
  const firstError = shallowRef<FirstError | null>(null);
  let timelineModel: LanesModel | null = null;
  let previewModel: LanesModel | null = null;
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
      // The view closed: let the models (and the timeline they hold) go.
      timelineModel = null;
      previewModel = null;
      model.value = null;
      return;
    }
    const timeline = session.getTimeline();
    if (timelineModel?.timeline !== timeline) {
      timelineModel = markRaw(LanesModel.forTimeline(timeline));
      waits.value = [];
      firstError.value = null;
      // Another session: its header is worked out at once, not after the last one's interval.
      insightsAt = 0;
      if (insightTimer !== null) clearTimeout(insightTimer);
      insightTimer = null;
    }
    const grew = timelineModel.ingest(viewers.value > 0);
    if (grew) scheduleInsights();
    const log = session.getLog();
    if (log !== timeline.log) {
      if (previewModel?.log !== log) {
        previewModel = markRaw(LanesModel.forLog(log));
        model.value = previewModel;
        revision.value += 1;
      }
      return;
    }
    previewModel = null;
    if (model.value !== timelineModel) {
      model.value = timelineModel;
      revision.value += 1;
    } else if (grew) revision.value += 1;
  }

  /** Works the header's waits out again, at most once per interval while events keep coming. */
  function scheduleInsights(): void {
    if (insightTimer !== null) return;
    const wait = Math.max(0, insightsAt + INSIGHT_INTERVAL_MS - performance.now());
    insightTimer = setTimeout(() => {
      insightTimer = null;
      insightsAt = performance.now();
      const current = timelineModel;
      if (!current) return;
      waits.value = current.activity.longestWaits(WAITS_SHOWN);
      firstError.value = current.activity.firstError;
    }, wait);
  }

  watch([version, loadedEvents, sessionId, viewers], sync, { immediate: true });
  onScopeDispose(() => {
    if (insightTimer !== null) clearTimeout(insightTimer);
  });

  return { model, revision, waits, firstError, show, hide };
});
