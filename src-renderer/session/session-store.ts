import { defineStore } from 'pinia';
import { markRaw } from 'vue';
import { useBridge } from '../bridge';
import { agentsOfFleet } from './graph-mapper';
import { Timeline } from './timeline';
import type { MessageLog } from './message-log';
import { createRunControls } from './session-controls';
import { createLiveEvents } from './session-live';
import { createSessionLoader, fleetFromEvents } from './session-loading';
import { createPlayhead } from './session-playhead';
import {
  clearDisplay,
  computeDisplay,
  createOpenSessionState,
  currentLog,
  currentReplay,
  endSeq,
} from './session-state';
import { createFailureReporter } from '../ui/failure';
import { useToastStore } from '../ui/toasts-store';

export type { SessionDisplay } from './display';

/**
 * The open session: its event log, the playhead, live events and the run commands. The parts live
 * in `session-*.ts` and share one `OpenSessionState`; this store opens and closes sessions and
 * routes backend events to them.
 */
export const useSessionStore = defineStore('session', () => {
  const bridge = useBridge();
  const toasts = useToastStore();
  const state = createOpenSessionState();
  const loader = createSessionLoader(state, bridge);
  const live = createLiveEvents(state, loader);
  const playhead = createPlayhead(state, loader);
  const controls = createRunControls(
    state,
    bridge,
    createFailureReporter(state.error, (message) => toasts.push(message)),
  );

  function getTimeline(): Timeline {
    return state.timeline;
  }

  function getLog(): MessageLog {
    return currentLog(state);
  }

  /**
   * What replay reads frames, times and message boundaries from: the window of the log around
   * the playhead while there is one (always for a long session), else the whole log.
   */
  function getReplay(): Timeline {
    return currentReplay(state);
  }

  /** Live run events reach this window only for the session it shows (see sessions.watch). */
  let unwatch: (() => void) | null = null;

  async function open(id: string): Promise<void> {
    const generation = ++state.openGeneration;
    const previous = unwatch;
    unwatch = bridge.watchSession(id);
    previous?.();
    state.sessionId.value = id;
    state.timeline = markRaw(new Timeline());
    live.clear();
    state.window = null;
    state.head = null;
    state.windowed.value = false;
    state.summary.value = null;
    state.agents.value = [];
    state.error.value = null;
    state.display.value = null;
    state.following.value = true;
    state.playhead.value = 0;
    state.loadedEvents.value = 0;
    state.loading.value = true;
    try {
      const [found, headed] = await Promise.all([loader.loadSummary(id), loader.loadHead(id, generation)]);
      if (!found || generation !== state.openGeneration) return;
      if (headed) {
        computeDisplay(state);
        // A long session stays in windows (one just before the end is on its way).
        if (state.windowed.value) return;
        // Let the first draw reach the screen before the log starts loading.
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        if (generation !== state.openGeneration) return;
      }
      await loader.loadEvents(id, generation, headed);
      if (generation !== state.openGeneration) return;
      if (state.agents.value.length === 0)
        state.agents.value = agentsOfFleet(fleetFromEvents(state.timeline.events));
      state.window = null;
      state.head = null;
    } finally {
      if (generation === state.openGeneration) {
        state.version.value += 1;
        state.loading.value = false;
        live.flush();
        computeDisplay(state);
      }
    }
  }

  /** Stops showing the session and lets go of its log (whole or a window) until the next open. */
  function close(): void {
    unwatch?.();
    unwatch = null;
    state.openGeneration += 1;
    state.sessionId.value = null;
    clearDisplay(state);
    live.clear();
    state.timeline = markRaw(new Timeline());
    state.window = null;
    state.head = null;
    state.windowed.value = false;
    state.loadedEvents.value = 0;
    state.version.value += 1;
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'run.events') {
      if (event.payload.sessionId !== state.sessionId.value) return;
      live.receive(event.payload.events);
      const failure = event.payload.events.find((runEvent) => runEvent.kind === 'error');
      if (failure?.kind === 'error') toasts.push(`${failure.agent ?? 'Run'}: ${failure.payload.message}`);
    } else if (
      event.channel === 'store.changed' &&
      event.payload.topic === 'session' &&
      event.payload.id === state.sessionId.value &&
      state.sessionId.value
    ) {
      void loader.loadSummary(state.sessionId.value);
    }
  });
  bridge.onDidRequireResync(() => {
    if (state.sessionId.value) void open(state.sessionId.value);
  });

  return {
    sessionId: state.sessionId,
    summary: state.summary,
    agents: state.agents,
    fleetName: state.fleetName,
    loading: state.loading,
    loadedEvents: state.loadedEvents,
    error: state.error,
    display: state.display,
    following: state.following,
    playhead: state.playhead,
    version: state.version,
    isActive: state.isActive,
    /** True when the open session is read in windows (too long to hold whole). */
    windowed: state.windowed,
    getTimeline,
    getLog,
    getReplay,
    /** Seq of the last event of the open session. */
    endSeq: () => endSeq(state),
    messageStep: playhead.messageStep,
    open,
    close,
    seek: playhead.seek,
    goLive: playhead.goLive,
    control: controls.control,
    answer: controls.answer,
    continueRun: controls.continueRun,
    computeDisplay: () => computeDisplay(state),
  };
});
