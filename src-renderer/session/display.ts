import type { SessionListItem } from '@shared/contract';
import type { Message, SessionStatus, ViewCounters, ViewState } from '@shared/domain';
import { mapGraph, type AgentInfo, type GraphModel } from './graph-mapper';
import type { SessionFrame } from './frame';

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

/** Where the display is read from: the frame at the playhead and the view at the end of the log. */
export interface DisplaySource {
  frame: SessionFrame;
  head: ViewState;
  lastT: number;
  visibleCount: number;
}

/**
 * The display for `source`, as fresh objects (the frame keeps changing in place). The session's
 * stored summary stands in for the status and stop reason at the end of the log until the log
 * itself carries them.
 */
export function displayOf(
  source: DisplaySource,
  agents: readonly AgentInfo[],
  summary: SessionListItem | null,
): SessionDisplay {
  const { frame, head } = source;
  const view = frame.view;
  const atEnd = view.seq === head.seq;
  const inFlight: Record<string, Message> = {};
  for (const id of view.order) {
    const message = view.messages[id];
    if (message) inFlight[id] = { ...message };
  }
  return {
    seq: view.seq,
    t: view.t,
    lastSeq: head.seq,
    lastT: source.lastT,
    status: view.status ?? (atEnd ? (summary?.status ?? null) : null),
    stopReason: view.stopReason ?? (atEnd ? (summary?.stopReason ?? null) : null),
    counters: { ...view.counters },
    agents: { ...view.agents },
    pendingHuman: view.pendingHuman ? { ...view.pendingHuman } : null,
    headStatus: head.status ?? summary?.status ?? null,
    headPendingHuman: head.pendingHuman ? { ...head.pendingHuman } : null,
    graph: mapGraph(agents, frame),
    inFlight,
    visibleCount: source.visibleCount,
  };
}
