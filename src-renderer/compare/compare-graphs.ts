import type { Output } from '@shared/contract';
import { isLiveStatus } from '@shared/domain';
import type { Bridge } from '../bridge';
import { agentsOfFleet, mapGraph, type GraphModel } from '../session/graph-mapper';
import { foldFrame, type SessionFrame } from '../session/frame';
import { statsOf } from '../session/preview';
import { FULL_LOG_LIMIT } from '../session/session-log-store';

/** One compared session's graph at its end, as the session view draws it there. */
export interface SideGraph {
  graph: GraphModel;
  fleetName: string;
  sessionId: string;
  /** The last seq folded. */
  seq: number;
  live: boolean;
}

/** A session as `sessions.get` answers: its summary and the fleet snapshot it ran with. */
export type SessionDetail = Output<'sessions.get'>;

/** `sessions.seek` past the end folds to the last event. */
const END_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * The frame at the end of a session: its whole event log folded, as the session view folds it
 * (turns after broadcasts included, so a session of broadcasts has its edges), for logs the
 * session view reads whole; a longer log's frame is the store's view at the end and its message
 * counts (direct messages and handoffs), as the session view draws it before its log has loaded.
 */
async function endFrame(bridge: Bridge, id: string): Promise<SessionFrame | string> {
  const whole = await bridge.call('sessions.events', { id, afterSeq: 0, limit: FULL_LOG_LIMIT });
  if (!whole.ok) return whole.error.message;
  if (whole.value.lastSeq <= FULL_LOG_LIMIT) return foldFrame(whole.value.events);
  const [head, edges] = await Promise.all([
    bridge.call('sessions.seek', { id, seq: END_SEQ }),
    bridge.call('sessions.edges', { id }),
  ]);
  if (!head.ok) return head.error.message;
  return { view: head.value, stats: statsOf(edges.ok ? edges.value : null) };
}

/**
 * The graph of session `detail` at its end, from the session view's own mapper and with its
 * colours; a message saying why when it cannot be read.
 */
export async function loadSideGraph(bridge: Bridge, detail: SessionDetail): Promise<SideGraph | string> {
  const { summary, fleet } = detail;
  const frame = await endFrame(bridge, summary.id);
  if (typeof frame === 'string') return frame;
  return {
    graph: mapGraph(agentsOfFleet(fleet), frame),
    fleetName: summary.fleetName,
    sessionId: summary.id,
    seq: frame.view.seq,
    live: isLiveStatus(summary.status),
  };
}
