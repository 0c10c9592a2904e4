import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import type { Message, RunEvent, SessionStatus, ViewCounters, ViewState } from '@shared/domain';
import { useBridge } from '../bridge';
import { Timeline } from '../session/timeline';
import { agentsOfFleet, mapGraph, type AgentInfo, type GraphModel } from '../graph/graph-mapper';
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

const SLICE = 20_000;
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

  const isActive = computed(() => ACTIVE.includes(display.value?.headStatus ?? null));

  function getTimeline(): Timeline {
    return timeline;
  }

  function computeDisplay(): void {
    const seq = following.value ? timeline.lastSeq : Math.min(playhead.value, timeline.lastSeq);
    playhead.value = seq;
    const head = timeline.frameAt(timeline.lastSeq).view;
    const headStatus = head.status ?? summary.value?.status ?? null;
    const headPendingHuman = head.pendingHuman ? { ...head.pendingHuman } : null;
    const frame = timeline.frameAt(seq);
    const view = frame.view;
    const inFlight: Record<string, Message> = {};
    for (const id of view.order) {
      const message = view.messages[id];
      if (message) inFlight[id] = { ...message };
    }
    display.value = {
      seq,
      t: view.t,
      lastSeq: timeline.lastSeq,
      lastT: timeline.lastT,
      status: view.status ?? (seq === timeline.lastSeq ? (summary.value?.status ?? null) : null),
      stopReason: view.stopReason ?? (seq === timeline.lastSeq ? (summary.value?.stopReason ?? null) : null),
      counters: { ...view.counters },
      agents: { ...view.agents },
      pendingHuman: view.pendingHuman ? { ...view.pendingHuman } : null,
      headStatus,
      headPendingHuman,
      graph: mapGraph(agents.value, frame),
      inFlight,
      visibleCount: timeline.log.countAt(seq),
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

  async function loadEvents(id: string, generation: number): Promise<boolean> {
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
      version.value += 1;
      if (events.length < SLICE || timeline.lastSeq >= result.value.lastSeq) return true;
    }
  }

  async function loadSummary(id: string): Promise<boolean> {
    const result = await bridge.call('sessions.get', { id });
    if (id !== sessionId.value) return false;
    if (!result.ok) {
      error.value = result.error.code === 'not-found' ? 'This session does not exist (it may have been deleted).' : result.error.message;
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
    summary.value = null;
    agents.value = [];
    error.value = null;
    display.value = null;
    following.value = true;
    playhead.value = 0;
    loadedEvents.value = 0;
    loading.value = true;
    try {
      if (!(await loadSummary(id))) return;
      await loadEvents(id, generation);
      if (generation !== openGeneration) return;
      if (agents.value.length === 0) agents.value = agentsOfFleet(fleetFromEvents(timeline.events));
    } finally {
      if (generation === openGeneration) {
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
  }

  /** Moves the playhead (replay); following stops unless it lands on the end of a live run. */
  function seek(seq: number): void {
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
    } else if (event.channel === 'store.changed' && event.payload.topic === 'sessions' && event.payload.id === sessionId.value && sessionId.value) {
      void loadSummary(sessionId.value);
    }
  });
  bridge.onDidRequireResync(() => {
    if (sessionId.value) void open(sessionId.value);
  });

  return { sessionId, summary, agents, fleetName, loading, loadedEvents, error, display, following, playhead, version, isActive, getTimeline, open, close, seek, goLive, control, answer, continueRun, computeDisplay };
});

function fleetFromEvents(events: readonly RunEvent[]): unknown {
  const started = events.find((event) => event.kind === 'session.started');
  return started?.kind === 'session.started' ? started.payload.fleet : null;
}
