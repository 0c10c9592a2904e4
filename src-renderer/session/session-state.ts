import { computed, markRaw, ref, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import { isLiveStatus, type ViewState } from '@shared/domain';
import type { AgentInfo } from './graph-mapper';
import { displayOf, type SessionDisplay } from './display';
import type { MessageLog } from './message-log';
import { Timeline } from './timeline';

/**
 * Sessions with more events than this are never read whole: the renderer holds a window of the
 * log around the playhead (see `OpenSessionState.window`). Smaller ones load whole behind the
 * first draw.
 */
export const FULL_LOG_LIMIT = 10_000;

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
  /** The whole event log, for sessions of at most FULL_LOG_LIMIT events (empty for longer ones). */
  timeline: Timeline;
  /**
   * Set while the whole log is not in `timeline` (from the first draw until it has loaded, and
   * always for a long session): a window of the log starting at a seq, from the store's folded
   * view and a page of messages there, plus the events read after it. `head` is the store's view
   * at the end of the log then (live events fold into it).
   */
  window: Timeline | null;
  head: ViewState | null;
  /** True when the session is read in windows only (longer than FULL_LOG_LIMIT). */
  windowed: Ref<boolean>;
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
    window: null,
    head: null,
    windowed: ref(false),
    openGeneration: 0,
  };
}

/** The message list the transcript reads: the window's, else the whole log's. */
export function currentLog(state: OpenSessionState): MessageLog {
  return state.window ? state.window.log : state.timeline.log;
}

/** What replay reads frames and times from: the window, else the whole log. */
export function currentReplay(state: OpenSessionState): Timeline {
  return state.window ?? state.timeline;
}

/** Seq of the last event of the session as far as the view knows. */
export function endSeq(state: OpenSessionState): number {
  return state.window && state.head ? state.head.seq : state.timeline.lastSeq;
}

/**
 * Publishes what the view shows at the playhead: the end of the log while following, else the
 * playhead; from the window while there is one (a playhead outside it, while its window is on the
 * way, shows the window's nearest frame), else from the whole log.
 */
export function computeDisplay(state: OpenSessionState): void {
  const { window, head, timeline } = state;
  if (window && head) {
    const last = endSeq(state);
    const wanted = state.following.value ? last : Math.min(state.playhead.value, last);
    state.playhead.value = wanted;
    const seq = Math.max(window.baseSeq, Math.min(wanted, window.lastSeq));
    const lastT = Math.max(head.t, window.lastT);
    const key = displayKey(state, window, seq, head, head.seq, lastT);
    if (unchanged(state, key)) return;
    publish(
      state,
      key,
      displayOf(
        { frame: window.frameAt(seq), head, lastT, visibleCount: window.log.countAt(seq) },
        state.agents.value,
        state.summary.value,
      ),
    );
    return;
  }
  const seq = state.following.value ? timeline.lastSeq : Math.min(state.playhead.value, timeline.lastSeq);
  state.playhead.value = seq;
  const headView = timeline.frameAt(timeline.lastSeq).view;
  const key = displayKey(state, timeline, seq, headView, timeline.lastSeq, timeline.lastT);
  if (unchanged(state, key)) return;
  publish(
    state,
    key,
    displayOf(
      {
        frame: timeline.frameAt(seq),
        head: headView,
        lastT: timeline.lastT,
        visibleCount: timeline.log.countAt(seq),
      },
      state.agents.value,
      state.summary.value,
    ),
  );
}

/**
 * Everything a display is made from. The frame at a seq of one timeline never changes (events
 * are only appended after it; a replaced window is another timeline), and the end of the log is
 * told by its seq, so a display with the same key would be the same: it is not published again
 * (reading more events after the playhead redraws nothing).
 */
interface DisplayKey {
  replay: Timeline;
  seq: number;
  head: ViewState;
  headSeq: number;
  lastT: number;
  agents: readonly AgentInfo[];
  summary: SessionListItem | null;
}

/** The key of the display each session state last published. */
const published = new WeakMap<OpenSessionState, { key: DisplayKey; display: SessionDisplay }>();

function displayKey(
  state: OpenSessionState,
  replay: Timeline,
  seq: number,
  head: ViewState,
  headSeq: number,
  lastT: number,
): DisplayKey {
  return { replay, seq, head, headSeq, lastT, agents: state.agents.value, summary: state.summary.value };
}

function unchanged(state: OpenSessionState, key: DisplayKey): boolean {
  const last = published.get(state);
  if (!last || state.display.value !== last.display) return false;
  const before = last.key;
  return (
    before.replay === key.replay &&
    before.seq === key.seq &&
    before.head === key.head &&
    before.headSeq === key.headSeq &&
    before.lastT === key.lastT &&
    before.agents === key.agents &&
    before.summary === key.summary
  );
}

/** Shows nothing and lets go of what the last display was made from (the view closed). */
export function clearDisplay(state: OpenSessionState): void {
  published.delete(state);
  state.display.value = null;
}

function publish(state: OpenSessionState, key: DisplayKey, display: SessionDisplay): void {
  published.set(state, { key, display });
  state.display.value = display;
}
