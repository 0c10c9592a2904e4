import { computed, markRaw, ref, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import { isLiveStatus, type ViewState } from '@shared/domain';
import type { AgentInfo } from '../graph/graph-mapper';
import { displayOf, type SessionDisplay } from '../session/display';
import type { MessageLog } from '../session/message-log';
import type { Preview } from '../session/preview';
import { Timeline } from '../session/timeline';

/**
 * The open session, shared by the session store's parts (loading, playhead, live events, run
 * controls). The refs are what views read; the plain fields are not reactive on purpose: views
 * learn of their changes through `version` and `display`.
 */
export interface OpenSessionState {
  sessionId: Ref<string | null>;
  summary: Ref<SessionListItem | null>;
  agents: ShallowRef<AgentInfo[]>;
  fleetName: Ref<string>;
  loading: Ref<boolean>;
  /** Events loaded so far while opening, for the progress line. */
  loadedEvents: Ref<number>;
  error: Ref<string | null>;
  display: ShallowRef<SessionDisplay | null>;
  /** True while the playhead follows the end of the log (live). */
  following: Ref<boolean>;
  playhead: Ref<number>;
  /** Bumped whenever the timeline grows, so views can re-read it. */
  version: Ref<number>;
  /** True while a process drives the session (judged at the end of the log). */
  isActive: ComputedRef<boolean>;
  timeline: Timeline;
  /**
   * Set from the first draw until the whole event log is in `timeline`: the store's view at the
   * playhead plus a page of messages. `previewHead` is the view at the end of the log then.
   */
  preview: Preview | null;
  previewHead: ViewState | null;
  /** Bumped by every open and close: work started for an older generation is dropped. */
  openGeneration: number;
}

export function createOpenSessionState(): OpenSessionState {
  const display = shallowRef<SessionDisplay | null>(null);
  return {
    sessionId: ref(null),
    summary: ref(null),
    agents: shallowRef([]),
    fleetName: ref(''),
    loading: ref(false),
    loadedEvents: ref(0),
    error: ref(null),
    display,
    following: ref(true),
    playhead: ref(0),
    version: ref(0),
    isActive: computed(() => isLiveStatus(display.value?.headStatus)),
    timeline: markRaw(new Timeline()),
    preview: null,
    previewHead: null,
    openGeneration: 0,
  };
}

/** The message list the transcript reads: the preview's page, then the whole log. */
export function currentLog(state: OpenSessionState): MessageLog {
  return state.preview ? state.preview.log : state.timeline.log;
}

/**
 * Publishes what the view shows at the playhead: the preview's frame while the log loads, then
 * the timeline's frame (the end of the log while following).
 */
export function computeDisplay(state: OpenSessionState): void {
  const { preview, previewHead, timeline } = state;
  if (preview && previewHead) {
    state.playhead.value = preview.frame.view.seq;
    state.display.value = displayOf(
      { frame: preview.frame, head: previewHead, lastT: previewHead.t, visibleCount: preview.log.size },
      state.agents.value,
      state.summary.value,
    );
    return;
  }
  const seq = state.following.value ? timeline.lastSeq : Math.min(state.playhead.value, timeline.lastSeq);
  state.playhead.value = seq;
  const head = timeline.frameAt(timeline.lastSeq).view;
  state.display.value = displayOf(
    {
      frame: timeline.frameAt(seq),
      head,
      lastT: timeline.lastT,
      visibleCount: timeline.log.countAt(seq),
    },
    state.agents.value,
    state.summary.value,
  );
}
