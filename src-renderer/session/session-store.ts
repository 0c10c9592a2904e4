import { defineStore } from 'pinia';
import { computed, toRef } from 'vue';
import { useBridge } from '../bridge';
import { agentsOfFleet } from './graph-mapper';
import type { Timeline } from './timeline';
import type { MessageLog } from './message-log';
import { createRunControls } from './session-controls';
import { useSessionDisplayStore } from './session-display-store';
import { useSessionInfoStore } from './session-info-store';
import { createLiveEvents } from './session-live';
import { createSessionLoader, fleetFromEvents } from './session-loading';
import { useSessionLogStore } from './session-log-store';
import { useSilentAgentsStore } from './silent-agents-store';
import { createPlayhead } from './session-playhead';
import { createFailureReporter } from '../ui/failure';
import { useToastStore } from '../ui/toasts-store';

export type { SessionDisplay } from './display';

/**
 * The open session's life: opens and closes sessions, routes backend events to them and sends
 * run commands. Its state is owned by three stores, one concern each: `useSessionInfoStore`
 * (which session, its summary and agents, loading, errors), `useSessionLogStore` (what is held of
 * the event log) and `useSessionDisplayStore` (the playhead and what is shown there); this store
 * shows them to the views read-only, as one place to read the open session from.
 */
export const useSessionStore = defineStore('session', () => {
  const bridge = useBridge();
  const toasts = useToastStore();
  const info = useSessionInfoStore();
  const log = useSessionLogStore();
  const playback = useSessionDisplayStore();
  const silent = useSilentAgentsStore();
  const loader = createSessionLoader(bridge);
  const live = createLiveEvents(loader);
  const playhead = createPlayhead(loader);
  // A control's failure shows once, on the view's error line (not as a toast too).
  const controls = createRunControls(bridge, createFailureReporter(toRef(info, 'error')));

  /** The whole log (empty while a window stands in for it, and always for a long session). */
  function getTimeline(): Timeline {
    return log.timeline;
  }

  /** The messages the transcript reads: the window's, else the whole log's. */
  function getLog(): MessageLog {
    return log.currentLog();
  }

  /**
   * What replay reads frames, times and message boundaries from: the window of the log around
   * the playhead while there is one (always for a long session), else the whole log.
   */
  function getReplay(): Timeline {
    return log.currentReplay();
  }

  /** Live run events reach this window only for the session it shows (see sessions.watch). */
  let unwatch: (() => void) | null = null;

  async function open(id: string): Promise<void> {
    const generation = info.nextGeneration();
    const previous = unwatch;
    unwatch = bridge.watchSession(id);
    previous?.();
    info.sessionId = id;
    log.reset();
    live.clear();
    info.summary = null;
    info.agents = [];
    info.error = null;
    playback.reset();
    silent.reset();
    info.loading = true;
    try {
      const [found, headed] = await Promise.all([loader.loadSummary(id), loader.loadHead(id, generation)]);
      if (!found || generation !== info.currentGeneration()) return;
      if (headed) {
        playback.computeDisplay();
        // A long session stays in windows (one just before the end is on its way).
        if (log.windowed) return;
        // Let the first draw reach the screen before the log starts loading.
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        if (generation !== info.currentGeneration()) return;
      }
      await loader.loadEvents(id, generation, headed);
      if (generation !== info.currentGeneration()) return;
      if (info.agents.length === 0) info.agents = agentsOfFleet(fleetFromEvents(log.timeline.events));
      log.window = null;
      log.head = null;
    } finally {
      if (generation === info.currentGeneration()) {
        info.loading = false;
        live.flush();
        playback.computeDisplay();
      }
    }
  }

  /** Stops showing the session and lets go of its log (whole or a window) until the next open. */
  function close(): void {
    unwatch?.();
    unwatch = null;
    info.nextGeneration();
    info.sessionId = null;
    playback.clearDisplay();
    live.clear();
    log.reset();
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'run.events') {
      if (event.payload.sessionId !== info.sessionId) return;
      live.receive(event.payload.events);
      silent.heard(event.payload.events);
      const failure = event.payload.events.find((runEvent) => runEvent.kind === 'error');
      if (failure?.kind === 'error') toasts.push(`${failure.agent ?? 'Run'}: ${failure.payload.message}`);
    } else if (
      event.channel === 'store.changed' &&
      event.payload.topic === 'session' &&
      event.payload.id === info.sessionId &&
      info.sessionId
    ) {
      void loader.loadSummary(info.sessionId);
    }
  });
  bridge.onDidRequireResync(() => {
    if (info.sessionId) void open(info.sessionId);
  });

  return {
    sessionId: computed(() => info.sessionId),
    summary: computed(() => info.summary),
    agents: computed(() => info.agents),
    fleetName: computed(() => info.fleetName),
    loading: computed(() => info.loading),
    error: computed(() => info.error),
    /** Events loaded so far while opening, for the progress line. */
    loadedEvents: computed(() => log.loadedEvents),
    /** True when the open session is read in windows (too long to hold whole). */
    windowed: computed(() => log.windowed),
    display: computed(() => playback.display),
    following: computed(() => playback.following),
    playhead: computed(() => playback.playhead),
    isActive: computed(() => playback.isActive),
    getTimeline,
    getLog,
    getReplay,
    /** Seq of the last event of the open session. */
    endSeq: () => log.endSeq(),
    messageStep: playhead.messageStep,
    open,
    close,
    seek: playhead.seek,
    goLive: playhead.goLive,
    control: controls.control,
    answer: controls.answer,
    continueRun: controls.continueRun,
    computeDisplay: () => playback.computeDisplay(),
  };
});
