import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import type { Message, RunEvent, SessionStatus, ViewCounters, ViewState } from '@shared/domain';
import { useBridge } from '../bridge';
import { Timeline } from '../session/timeline';
import { agentsOfFleet, mapGraph, type AgentInfo, type GraphModel } from '../graph/graph-mapper';
import type { SessionFrame } from '../session/frame';
import type { MessageLog } from '../session/message-log';
import { previewOf, statsOf, type Preview } from '../session/preview';
import { useToastStore } from './toasts';

/** What the session view draws, computed once per animation frame from the timeline. */
export interface SessionDisplay {
  /** The playhead: the seq the graph and transcript show. */
  seq: number;
  t: number;
  lastSeq: number;
  lastT: number;
  status: SessionStatus | null;
  stopReason: string | null;
  counters: ViewCounters;
  agents: ViewState['agents'];
  pendingHuman: ViewState['pendingHuman'];
  /** The state at the end of the log, which run controls act on. */
  headStatus: SessionStatus | null;
  headPendingHuman: ViewState['pendingHuman'];
  graph: GraphModel;
  /** Messages still in flight at the playhead, by id. */
  inFlight: Record<string, Message>;
  /** Messages that have appeared by the playhead. */
  visibleCount: number;
}

/** Events per `sessions.events` call while the log loads in the background. */
const SLICE = 10_000;
/** Messages paged for the first draw (and for each seek before the log has loaded). */
const PREVIEW_PAGE = 200;
/** `sessions.seek` past the end folds to the last event: the head of the log. */
const END_SEQ = Number.MAX_SAFE_INTEGER;
const ACTIVE: ReadonlyArray<SessionStatus | null> = ['running', 'paused', 'waiting-for-human'];

/** The open session: its event log, the playhead, live events and the run commands. */
export const useSessionStore = defineStore('session', () => {
  const bridge = useBridge();
  const toasts = useToastStore();
  const sessionId = ref<string | null>(null);
  const summary = ref<SessionListItem | null>(null);
  const agents = shallowRef<AgentInfo[]>([]);
  const fleetName = ref('');
  const loading = ref(false);
  /** Events loaded so far while opening, for the progress line. */
  const loadedEvents = ref(0);
  const error = ref<string | null>(null);
  const display = shallowRef<SessionDisplay | null>(null);
  /** True while the playhead follows the end of the log (live). */
  const following = ref(true);
  const playhead = ref(0);
  /** Bumped whenever the timeline grows, so views can re-read it. */
  const version = ref(0);
  let timeline = markRaw(new Timeline());
  let pending: RunEvent[] = [];
  let frameRequested = false;
  let healing = false;
  let healRetry: ReturnType<typeof setTimeout> | null = null;
  let openGeneration = 0;
  /**
   * Set from the first draw until the whole event log is in `timeline`: the store's view at the
   * playhead plus a page of messages. `previewHead` is the view at the end of the log then.
   */
  let preview: Preview | null = null;
  let previewHead: ViewState | null = null;
  let seekGeneration = 0;

  const isActive = computed(() => ACTIVE.includes(display.value?.headStatus ?? null));

  function getTimeline(): Timeline {
    return timeline;
  }

  /** The message list the transcript reads: the preview's page, then the whole log. */
  function getLog(): MessageLog {
    return preview ? preview.log : timeline.log;
  }

  function computeDisplay(): void {
    if (preview && previewHead) {
      const view = preview.frame.view;
      playhead.value = view.seq;
      draw(preview.frame, previewHead, previewHead.t, preview.log.size);
      return;
    }
    const seq = following.value ? timeline.lastSeq : Math.min(playhead.value, timeline.lastSeq);
    playhead.value = seq;
    const head = timeline.frameAt(timeline.lastSeq).view;
    draw(timeline.frameAt(seq), head, timeline.lastT, timeline.log.countAt(seq));
  }

  /** Publishes what the view shows: `frame` at the playhead, `head` at the end of the log. */
  function draw(frame: SessionFrame, head: ViewState, lastT: number, visibleCount: number): void {
    const view = frame.view;
    const atEnd = view.seq === head.seq;
    const inFlight: Record<string, Message> = {};
    for (const id of view.order) {
      const message = view.messages[id];
      if (message) inFlight[id] = { ...message };
    }
    display.value = {
      seq: view.seq,
      t: view.t,
      lastSeq: head.seq,
      lastT,
      status: view.status ?? (atEnd ? (summary.value?.status ?? null) : null),
      stopReason: view.stopReason ?? (atEnd ? (summary.value?.stopReason ?? null) : null),
      counters: { ...view.counters },
      agents: { ...view.agents },
      pendingHuman: view.pendingHuman ? { ...view.pendingHuman } : null,
      headStatus: head.status ?? summary.value?.status ?? null,
      headPendingHuman: head.pendingHuman ? { ...head.pendingHuman } : null,
      graph: mapGraph(agents.value, frame),
      inFlight,
      visibleCount,
    };
  }

  /** Coalesces redraws into one per animation frame. */
  function requestFrame(): void {
    if (frameRequested) return;
    frameRequested = true;
    requestAnimationFrame(() => {
      frameRequested = false;
      flushPending();
      computeDisplay();
    });
  }

  function flushPending(): void {
    if (healing || pending.length === 0) return;
    const batch = pending;
    pending = [];
    for (let i = 0; i < batch.length; i++) {
      const result = timeline.append(batch[i] as RunEvent);
      if (result === 'gap') {
        pending = batch.slice(i);
        void heal();
        break;
      }
    }
    version.value += 1;
  }

  /** Re-reads the events after the last one held from the store (a gap or reorder was seen). */
  async function heal(): Promise<void> {
    if (healing || !sessionId.value) return;
    healing = true;
    const id = sessionId.value;
    try {
      await loadEvents(id, openGeneration);
    } finally {
      healing = false;
    }
    pending = pending.filter((event) => event.seq > timeline.lastSeq);
    const first = pending[0];
    if (first && first.seq !== timeline.lastSeq + 1 && !healRetry) {
      // The store has not written the missing events yet: try again shortly.
      healRetry = setTimeout(() => {
        healRetry = null;
        void heal();
      }, 150);
    }
    requestFrame();
  }

  /**
   * Reads the stored log after what `timeline` holds, slice by slice. With `yieldBetween` it gives
   * the browser a turn between slices, so a long log loads behind a responsive view.
   */
  async function loadEvents(id: string, generation: number, yieldBetween = false): Promise<boolean> {
    for (;;) {
      const result = await bridge.call('sessions.events', { id, afterSeq: timeline.lastSeq, limit: SLICE });
      if (generation !== openGeneration) return false;
      if (!result.ok) {
        error.value = result.error.message;
        return false;
      }
      const events = result.value.events;
      if (timeline.appendAll(events) === 'gap') {
        error.value = 'The stored event log has a gap; showing what could be read.';
        return false;
      }
      loadedEvents.value = timeline.lastSeq;
      if (!preview) version.value += 1;
      if (events.length < SLICE || timeline.lastSeq >= result.value.lastSeq) return true;
      if (yieldBetween) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /**
   * The first draw without the log: the store's view at the end plus the last page of messages.
   * False when the backend cannot answer (then the view waits for the log, as before).
   */
  async function loadPreview(id: string, generation: number): Promise<boolean> {
    const [head, page] = await Promise.all([
      bridge.call('sessions.seek', { id, seq: END_SEQ }),
      bridge.call('sessions.messages', { id, from: 'end', limit: PREVIEW_PAGE }),
    ]);
    // Asked after the seek and the page so its SQL count (~0.3 s on 100k messages) does not hold
    // the first draw back; the edges are drawn when it answers. Without an answer the graph fills
    // in when the log has loaded.
    void bridge.call('sessions.edges', { id }).then((edges) => {
      if (
        generation !== openGeneration ||
        !preview ||
        preview.frame.view.seq !== previewHead?.seq ||
        !edges.ok
      )
        return;
      preview.frame.stats = statsOf(edges.value);
      computeDisplay();
    });
    if (generation !== openGeneration || !head.ok || !page.ok) return false;
    previewHead = head.value;
    preview = markRaw(previewOf(head.value, page.value.items));
    version.value += 1;
    return true;
  }

  /** Before the log has loaded, a seek asks the store for the view and the page at `seq`. */
  async function seekPreview(seq: number): Promise<void> {
    const id = sessionId.value;
    if (!id) return;
    const generation = ++seekGeneration;
    const [view, page, edges] = await Promise.all([
      bridge.call('sessions.seek', { id, seq }),
      bridge.call('sessions.messages', { id, before: { seq: seq + 1 }, limit: PREVIEW_PAGE }),
      bridge.call('sessions.edges', { id, seq }),
    ]);
    if (generation !== seekGeneration || !preview || id !== sessionId.value || !view.ok || !page.ok) return;
    preview = markRaw(previewOf(view.value, page.value.items, edges.ok ? edges.value : null));
    version.value += 1;
    computeDisplay();
  }

  async function loadSummary(id: string): Promise<boolean> {
    const result = await bridge.call('sessions.get', { id });
    if (id !== sessionId.value) return false;
    if (!result.ok) {
      error.value =
        result.error.code === 'not-found'
          ? 'This session does not exist (it may have been deleted).'
          : result.error.message;
      return false;
    }
    summary.value = result.value.summary;
    fleetName.value = result.value.summary.fleetName;
    const fromSnapshot = agentsOfFleet(result.value.fleet);
    if (fromSnapshot.length > 0 || agents.value.length === 0) agents.value = fromSnapshot;
    return true;
  }

  async function open(id: string): Promise<void> {
    const generation = ++openGeneration;
    sessionId.value = id;
    timeline = markRaw(new Timeline());
    pending = [];
    preview = null;
    previewHead = null;
    summary.value = null;
    agents.value = [];
    error.value = null;
    display.value = null;
    following.value = true;
    playhead.value = 0;
    loadedEvents.value = 0;
    loading.value = true;
    try {
      const [found, previewed] = await Promise.all([loadSummary(id), loadPreview(id, generation)]);
      if (!found || generation !== openGeneration) return;
      if (previewed) {
        computeDisplay();
        // Let the first draw reach the screen before the log starts loading.
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        if (generation !== openGeneration) return;
      }
      await loadEvents(id, generation, previewed);
      if (generation !== openGeneration) return;
      if (agents.value.length === 0) agents.value = agentsOfFleet(fleetFromEvents(timeline.events));
    } finally {
      if (generation === openGeneration) {
        // A seek made while loading stays where it landed (open() reset `preview`, so TS
        // cannot see that the awaits above set it again).
        const shown = preview as Preview | null;
        if (shown && !following.value) playhead.value = shown.frame.view.seq;
        preview = null;
        previewHead = null;
        version.value += 1;
        loading.value = false;
        flushPending();
        computeDisplay();
      }
    }
  }

  function close(): void {
    openGeneration += 1;
    sessionId.value = null;
    display.value = null;
    pending = [];
    preview = null;
    previewHead = null;
  }

  /** Moves the playhead (replay); following stops unless it lands on the end of a live run. */
  function seek(seq: number): void {
    if (preview && previewHead) {
      const target = Math.max(0, Math.min(Math.round(seq), previewHead.seq));
      following.value = target >= previewHead.seq && isActive.value;
      playhead.value = target;
      void seekPreview(target);
      return;
    }
    const target = Math.max(0, Math.min(Math.round(seq), timeline.lastSeq));
    following.value = target >= timeline.lastSeq && isActive.value;
    playhead.value = target;
    computeDisplay();
  }

  function goLive(): void {
    following.value = true;
    computeDisplay();
  }

  async function control(action: 'pause' | 'resume' | 'step' | 'stop'): Promise<boolean> {
    if (!sessionId.value) return false;
    const result = await bridge.call('runs.control', { sessionId: sessionId.value, action });
    if (!result.ok) return report(`Could not ${action} the run: ${result.error.message}`);
    return true;
  }

  async function answer(requestId: string, text: string): Promise<boolean> {
    if (!sessionId.value) return false;
    const result = await bridge.call('runs.answer', { sessionId: sessionId.value, requestId, text });
    if (!result.ok) return report(`Could not send the answer: ${result.error.message}`);
    return true;
  }

  async function continueRun(task: string, context: Record<string, string>): Promise<boolean> {
    if (!sessionId.value) return false;
    const result = await bridge.call('runs.continue', { sessionId: sessionId.value, task, context });
    if (!result.ok) return report(`Could not continue the session: ${result.error.message}`);
    following.value = true;
    return true;
  }

  function report(message: string): false {
    error.value = message;
    toasts.push(message);
    return false;
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'run.events') {
      if (event.payload.sessionId !== sessionId.value) return;
      for (const runEvent of event.payload.events) pending.push(runEvent);
      if (!loading.value) requestFrame();
      const failure = event.payload.events.find((runEvent) => runEvent.kind === 'error');
      if (failure?.kind === 'error') toasts.push(`${failure.agent ?? 'Run'}: ${failure.payload.message}`);
    } else if (
      event.channel === 'store.changed' &&
      event.payload.topic === 'sessions' &&
      event.payload.id === sessionId.value &&
      sessionId.value
    ) {
      void loadSummary(sessionId.value);
    }
  });
  bridge.onDidRequireResync(() => {
    if (sessionId.value) void open(sessionId.value);
  });

  return {
    sessionId,
    summary,
    agents,
    fleetName,
    loading,
    loadedEvents,
    error,
    display,
    following,
    playhead,
    version,
    isActive,
    getTimeline,
    getLog,
    open,
    close,
    seek,
    goLive,
    control,
    answer,
    continueRun,
    computeDisplay,
  };
});

function fleetFromEvents(events: readonly RunEvent[]): unknown {
  const started = events.find((event) => event.kind === 'session.started');
  return started?.kind === 'session.started' ? started.payload.fleet : null;
}
