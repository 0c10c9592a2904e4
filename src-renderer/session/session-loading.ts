import { markRaw, toRef } from 'vue';
import type { Result, SessionEdgeStats, StoredMessage } from '@shared/contract';
import { applyEvent, compactInPlace, type RunEvent, type ViewState } from '@shared/domain';
import type { Bridge } from '../bridge';
import { agentsOfFleet } from './graph-mapper';
import { cloneFrame } from './frame';
import { MessageLog } from './message-log';
import { windowAt } from './preview';
import { Timeline } from './timeline';
import { createFailureReporter } from '../ui/failure';
import { useSessionDisplayStore } from './session-display-store';
import { useSessionInfoStore } from './session-info-store';
import { FULL_LOG_LIMIT, useSessionLogStore } from './session-log-store';

/** Events per `sessions.events` call while the whole log loads in the background. */
const SLICE = 10_000;
/** Messages paged for a window's start (the first draw, and each seek outside the window). */
const PAGE = 200;
/** Events read into a window at a time. */
const WINDOW_EVENTS = 4_000;
/**
 * Events read right after a seek outside the window: enough to step and start playing (playing
 * reads WINDOW_EVENTS more at once), few enough to be read while the window is drawn.
 */
const FIRST_EVENTS = 100;
/** Events before the end read behind the first draw of a long session (see primeWindow). */
const PRIME_EVENTS = 1_000;
/** A window holding more events than this starts again at the playhead (memory stays bounded). */
const MAX_WINDOW_EVENTS = 3 * WINDOW_EVENTS;
/**
 * How long a window waits for its graph totals before it is drawn without them (they are asked
 * with the view and come with it, unless the store is still tallying a long session's first pass).
 */
const EDGES_WAIT_MS = 30;
/** `sessions.seek` past the end folds to the last event: the head of the log. */
const END_SEQ = Number.MAX_SAFE_INTEGER;

/** How the session store reads a session from the backend: its summary, windows, its event log. */
export interface SessionLoader {
  /** Reads the summary and the agents of its fleet snapshot; false when it cannot be read. */
  loadSummary(id: string): Promise<boolean>;
  /**
   * Reads the stored log after what the timeline holds, slice by slice; false when it stopped
   * early (an error, a gap, or a newer open). With `yieldBetween` it gives the browser a turn
   * between slices, so a long log loads behind a responsive view.
   */
  loadEvents(id: string, generation: number, yieldBetween?: boolean): Promise<boolean>;
  /**
   * The first draw without the log: the store's view at the end plus the last page of messages,
   * as a window at the end. False when the backend cannot answer (then the view waits for the log).
   */
  loadHead(id: string, generation: number): Promise<boolean>;
  /**
   * Brings a window to the playhead when it is outside the window held: the store's view, page
   * and edges there, then its first events.
   */
  seekWindow(): Promise<void>;
  /** Reads the events after the window when the playhead nears its end (one call at a time). */
  extendWindow(limit?: number): Promise<void>;
  /**
   * The message boundary after (1) or before (-1) `seq` from the store, when the window holds
   * none that way; null when there is none.
   */
  messageBoundary(seq: number, direction: 1 | -1): Promise<number | null>;
  /** Live events of a windowed session: folded into the head, and into the window at the end. */
  receiveWindowed(events: readonly RunEvent[]): void;
}

/** Reads into the session stores (info, log, display), which must be active. */
export function createSessionLoader(bridge: Bridge): SessionLoader {
  const info = useSessionInfoStore();
  const log = useSessionLogStore();
  const playback = useSessionDisplayStore();
  let chasing: Promise<void> | null = null;
  let extending: Promise<void> | null = null;
  const fail = createFailureReporter(toRef(info, 'error'));

  async function loadSummary(id: string): Promise<boolean> {
    const result = await bridge.call('sessions.get', { id });
    if (id !== info.sessionId) return false;
    if (!result.ok) {
      const missing = result.error.code === 'not-found';
      return fail(missing ? 'This session does not exist (it may have been deleted).' : result.error, false);
    }
    info.summary = result.value.summary;
    info.fleetName = result.value.summary.fleetName;
    const fromSnapshot = agentsOfFleet(result.value.fleet);
    if (fromSnapshot.length > 0 || info.agents.length === 0) info.agents = fromSnapshot;
    return true;
  }

  async function loadEvents(id: string, generation: number, yieldBetween = false): Promise<boolean> {
    for (;;) {
      const afterSeq = log.timeline.lastSeq;
      const result = await bridge.call('sessions.events', { id, afterSeq, limit: SLICE });
      if (generation !== info.currentGeneration()) return false;
      if (!result.ok) return fail(result.error, false);
      const events = result.value.events;
      if (log.timeline.appendAll(events) === 'gap')
        return fail('The stored event log has a gap; showing what could be read.', false);
      log.loadedEvents = log.timeline.lastSeq;
      log.timelineGrew();
      if (events.length < SLICE || log.timeline.lastSeq >= result.value.lastSeq) return true;
      if (yieldBetween) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  async function loadHead(id: string, generation: number): Promise<boolean> {
    const [head, page] = await Promise.all([
      bridge.call('sessions.seek', { id, seq: END_SEQ }),
      bridge.call('sessions.messages', { id, from: 'end', limit: PAGE }),
    ]);
    if (generation !== info.currentGeneration() || !head.ok || !page.ok) return false;
    log.head = head.value;
    log.window = markRaw(windowAt(head.value, page.value.items));
    log.windowed = head.value.seq > FULL_LOG_LIMIT;
    // A long session: a window just before the end, asked before the totals at the end so the
    // backend answers it first.
    if (log.windowed) void primeWindow();
    // Asked after the view and the page so the first draw does not wait for the graph totals;
    // they replace the window's (still empty) start when they come.
    void bridge.call('sessions.edges', { id }).then((edges) => {
      const window = log.window;
      if (generation !== info.currentGeneration() || !window || !edges.ok) return;
      if (window.baseSeq !== head.value.seq || window.events.length > 0) return;
      log.window = markRaw(windowAt(head.value, page.value.items, edges.value));
      playback.computeDisplay();
    });
    return true;
  }

  /**
   * Brings a window to the playhead: reads the window at the playhead, and again while the
   * playhead has moved outside it meanwhile (one read at a time, so a stream of seeks settles on
   * the last one and every read that completes is drawn).
   */
  function seekWindow(): Promise<void> {
    chasing ??= chase().finally(() => {
      chasing = null;
    });
    return chasing;
  }

  async function chase(): Promise<void> {
    const opened = info.currentGeneration();
    for (;;) {
      const target = playback.playhead;
      const window = log.window;
      if (opened !== info.currentGeneration() || !window) return;
      if (window.covers(target)) {
        playback.computeDisplay();
        return;
      }
      if (!(await readWindowAt(target, opened))) return;
      // Its first events, unless the playhead has already moved on (then it is chased first).
      // The store reads them while this thread draws the window; they redraw nothing.
      if (playback.playhead === target) await extendWindow(FIRST_EVENTS);
    }
  }

  /** Replaces the window by one starting at `seq`; false when the session changed or a read failed. */
  async function readWindowAt(seq: number, opened: number): Promise<boolean> {
    const id = info.sessionId;
    if (!id) return false;
    if (seq === 0) {
      // Before the first event: nothing to ask the store.
      log.window = markRaw(new Timeline());
    } else {
      const totals = bridge.call('sessions.edges', { id, seq });
      const [view, page] = await Promise.all([
        bridge.call('sessions.seek', { id, seq }),
        bridge.call('sessions.messages', { id, before: { seq: seq + 1 }, limit: PAGE }),
      ]);
      if (opened !== info.currentGeneration() || !log.window || !view.ok || !page.ok) return false;
      const edges = await within(totals, EDGES_WAIT_MS);
      const window = markRaw(windowAt(view.value, page.value.items, edges?.ok ? edges.value : null));
      log.window = window;
      if (!edges) void totals.then((late) => patchTotals(window, view.value, page.value.items, late));
    }
    playback.computeDisplay();
    return true;
  }

  /**
   * For a long session shown at its end: a window starting PRIME_EVENTS before the end, read
   * behind the first draw, so stepping and playing back from the end need no round trip.
   */
  async function primeWindow(): Promise<void> {
    const { head, window } = log;
    const id = info.sessionId;
    if (!head || !window || !id || head.seq <= PRIME_EVENTS) return;
    const opened = info.currentGeneration();
    const base = head.seq - PRIME_EVENTS;
    const totals = bridge.call('sessions.edges', { id, seq: base });
    const [view, page, events] = await Promise.all([
      bridge.call('sessions.seek', { id, seq: base }),
      bridge.call('sessions.messages', { id, before: { seq: base + 1 }, limit: PAGE }),
      bridge.call('sessions.events', { id, afterSeq: base, limit: PRIME_EVENTS }),
    ]);
    const edges = await within(totals, EDGES_WAIT_MS);
    // Only while the view still shows an untouched window at the end (the first draw's).
    const shown = log.window;
    if (
      opened !== info.currentGeneration() ||
      !shown ||
      shown.baseSeq !== head.seq ||
      shown.events.length > 0
    )
      return;
    if (!view.ok || !page.ok || !events.ok) return;
    const primed = markRaw(windowAt(view.value, page.value.items, edges?.ok ? edges.value : null));
    if (primed.appendAll(events.value.events) === 'gap' || primed.lastSeq < playback.playhead) return;
    log.window = primed;
    if (!edges) void totals.then((late) => patchTotals(primed, view.value, page.value.items, late));
    playback.computeDisplay();
  }

  /**
   * Graph totals that came after their window was drawn (the store was still tallying a long
   * session): the same window again with them, holding the events read into it meanwhile, while
   * it is still the one shown.
   */
  function patchTotals(
    shown: Timeline,
    view: ViewState,
    page: readonly StoredMessage[],
    edges: Result<SessionEdgeStats>,
  ): void {
    if (log.window !== shown || !edges.ok) return;
    const next = windowAt(view, page, edges.value);
    if (next.appendAll(shown.events) === 'gap') return;
    log.window = markRaw(next);
    playback.computeDisplay();
  }

  function extendWindow(limit = WINDOW_EVENTS): Promise<void> {
    extending ??= readMore(limit).finally(() => {
      extending = null;
    });
    return extending;
  }

  async function readMore(limit: number): Promise<void> {
    const window = log.window;
    const id = info.sessionId;
    if (!window || !id || !log.head || window.lastSeq >= log.head.seq) return;
    const result = await bridge.call('sessions.events', {
      id,
      afterSeq: window.lastSeq,
      limit,
    });
    if (log.window !== window || !result.ok) return;
    window.appendAll(result.value.events);
    if (window.events.length > MAX_WINDOW_EVENTS) log.window = markRaw(restart(window, playback.playhead));
    else log.windowGrew();
    // While a window is read for a playhead outside this one, that read draws it (drawing this
    // window's nearest frame meanwhile would cost a render in the middle of the seek).
    if (!chasing) playback.computeDisplay();
  }

  async function messageBoundary(seq: number, direction: 1 | -1): Promise<number | null> {
    const id = info.sessionId;
    if (!id) return null;
    const page = await bridge.call(
      'sessions.messages',
      direction === 1 ? { id, after: { seq }, limit: 1 } : { id, before: { seq }, limit: 1 },
    );
    if (!page.ok || id !== info.sessionId) return null;
    return page.value.items[0]?.seq ?? null;
  }

  function receiveWindowed(events: readonly RunEvent[]): void {
    const { head, window } = log;
    if (!head || !window) return;
    for (const event of events) {
      if (event.seq <= head.seq) continue;
      if (event.seq !== head.seq + 1) {
        // Missed events: read the head again; the window catches up when the playhead nears it.
        log.windowGrew();
        void refreshHead();
        return;
      }
      applyEvent(head, event);
      if (window.lastSeq === event.seq - 1) window.append(event);
    }
    compactInPlace(head);
    log.windowGrew();
  }

  async function refreshHead(): Promise<void> {
    const id = info.sessionId;
    if (!id) return;
    const head = await bridge.call('sessions.seek', { id, seq: END_SEQ });
    if (!head.ok || id !== info.sessionId || !log.window) return;
    log.head = head.value;
    if (playback.following) playback.playhead = head.value.seq;
    // Following the end: the window moves there (seekWindow draws once it has).
    if (playback.following && !log.window.covers(head.value.seq)) void seekWindow();
    else playback.computeDisplay();
  }

  return {
    loadSummary,
    loadEvents,
    loadHead,
    seekWindow,
    extendWindow,
    messageBoundary,
    receiveWindowed,
  };
}

/**
 * The window started again at `seq` (within it): the frame there, the messages visible there
 * (the last PAGE of them plus those in flight), then the events after it.
 */
function restart(window: Timeline, seq: number): Timeline {
  const at = Math.max(window.baseSeq, Math.min(seq, window.lastSeq));
  const frame = cloneFrame(window.frameAt(at));
  const log = new MessageLog();
  const visible = window.log.entries.slice(0, window.log.countAt(at));
  for (const entry of visible.slice(-PAGE)) {
    if (entry.final && entry.endSeq <= at) log.appendMessage(entry.final, entry.endSeq, entry.droppedReason);
    else {
      const inFlight = frame.view.messages[entry.id];
      if (inFlight) log.appendStarted(inFlight, at);
    }
  }
  const next = new Timeline({ seq: at, frame, log });
  next.appendAll(window.events.slice(at - window.baseSeq));
  return next;
}

/** The fleet snapshot in the log's `session.started` event (null when the log has none). */
export function fleetFromEvents(events: readonly RunEvent[]): unknown {
  const started = events.find((event) => event.kind === 'session.started');
  return started?.kind === 'session.started' ? started.payload.fleet : null;
}

/** The answer of `pending` if it settles within `ms`, else null (it is still awaited elsewhere). */
function within<T>(pending: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    void pending.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
