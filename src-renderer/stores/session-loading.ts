import { markRaw } from 'vue';
import type { RunEvent } from '@shared/domain';
import type { Bridge } from '../bridge';
import { agentsOfFleet } from '../graph/graph-mapper';
import { previewOf, statsOf } from '../session/preview';
import { createFailureReporter } from './failure';
import { computeDisplay, type OpenSessionState } from './session-state';

/** Events per `sessions.events` call while the log loads in the background. */
const SLICE = 10_000;
/** Messages paged for the first draw (and for each seek before the log has loaded). */
const PREVIEW_PAGE = 200;
/** `sessions.seek` past the end folds to the last event: the head of the log. */
const END_SEQ = Number.MAX_SAFE_INTEGER;

/** How the session store reads a session from the backend: its summary, a preview, its event log. */
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
   * The first draw without the log: the store's view at the end plus the last page of messages.
   * False when the backend cannot answer (then the view waits for the log).
   */
  loadPreview(id: string, generation: number): Promise<boolean>;
  /** Before the log has loaded, a seek asks the store for the view and the page at `seq`. */
  seekPreview(seq: number): Promise<void>;
}

export function createSessionLoader(state: OpenSessionState, bridge: Bridge): SessionLoader {
  let seekGeneration = 0;
  const fail = createFailureReporter(state.error);

  async function loadSummary(id: string): Promise<boolean> {
    const result = await bridge.call('sessions.get', { id });
    if (id !== state.sessionId.value) return false;
    if (!result.ok) {
      const missing = result.error.code === 'not-found';
      return fail(missing ? 'This session does not exist (it may have been deleted).' : result.error, false);
    }
    state.summary.value = result.value.summary;
    state.fleetName.value = result.value.summary.fleetName;
    const fromSnapshot = agentsOfFleet(result.value.fleet);
    if (fromSnapshot.length > 0 || state.agents.value.length === 0) state.agents.value = fromSnapshot;
    return true;
  }

  async function loadEvents(id: string, generation: number, yieldBetween = false): Promise<boolean> {
    for (;;) {
      const afterSeq = state.timeline.lastSeq;
      const result = await bridge.call('sessions.events', { id, afterSeq, limit: SLICE });
      if (generation !== state.openGeneration) return false;
      if (!result.ok) return fail(result.error, false);
      const events = result.value.events;
      if (state.timeline.appendAll(events) === 'gap')
        return fail('The stored event log has a gap; showing what could be read.', false);
      state.loadedEvents.value = state.timeline.lastSeq;
      if (!state.preview) state.version.value += 1;
      if (events.length < SLICE || state.timeline.lastSeq >= result.value.lastSeq) return true;
      if (yieldBetween) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  async function loadPreview(id: string, generation: number): Promise<boolean> {
    const [head, page] = await Promise.all([
      bridge.call('sessions.seek', { id, seq: END_SEQ }),
      bridge.call('sessions.messages', { id, from: 'end', limit: PREVIEW_PAGE }),
    ]);
    // Asked after the seek and the page so its SQL count (~0.3 s on 100k messages) does not hold
    // the first draw back; the edges are drawn when it answers. Without an answer the graph fills
    // in when the log has loaded.
    void bridge.call('sessions.edges', { id }).then((edges) => {
      const { preview, previewHead } = state;
      if (
        generation !== state.openGeneration ||
        !preview ||
        preview.frame.view.seq !== previewHead?.seq ||
        !edges.ok
      )
        return;
      preview.frame.stats = statsOf(edges.value);
      computeDisplay(state);
    });
    if (generation !== state.openGeneration || !head.ok || !page.ok) return false;
    state.previewHead = head.value;
    state.preview = markRaw(previewOf(head.value, page.value.items));
    state.version.value += 1;
    return true;
  }

  async function seekPreview(seq: number): Promise<void> {
    const id = state.sessionId.value;
    if (!id) return;
    const generation = ++seekGeneration;
    const [view, page, edges] = await Promise.all([
      bridge.call('sessions.seek', { id, seq }),
      bridge.call('sessions.messages', { id, before: { seq: seq + 1 }, limit: PREVIEW_PAGE }),
      bridge.call('sessions.edges', { id, seq }),
    ]);
    if (generation !== seekGeneration || !state.preview || id !== state.sessionId.value) return;
    if (!view.ok || !page.ok) return;
    state.preview = markRaw(previewOf(view.value, page.value.items, edges.ok ? edges.value : null));
    state.version.value += 1;
    computeDisplay(state);
  }

  return { loadSummary, loadEvents, loadPreview, seekPreview };
}

/** The fleet snapshot in the log's `session.started` event (null when the log has none). */
export function fleetFromEvents(events: readonly RunEvent[]): unknown {
  const started = events.find((event) => event.kind === 'session.started');
  return started?.kind === 'session.started' ? started.payload.fleet : null;
}
