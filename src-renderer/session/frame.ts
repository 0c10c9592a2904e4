import { applyEvent, cloneView, emptyView, type RunEvent, type ViewState } from '@shared/domain';
import { applyStatsEvent, emptyStats, type GraphStats } from './stats';

/**
 * What the session view draws at one point of the event log: the shared ViewState (compacted:
 * `messages` keeps only messages still in flight, completed ones live in the MessageLog) plus the
 * graph totals. Live and replayed sessions are both folds into this one shape.
 */
export interface SessionFrame {
  view: ViewState;
  stats: GraphStats;
}

export function emptyFrame(): SessionFrame {
  return { view: emptyView(), stats: emptyStats() };
}

export function cloneFrame(frame: SessionFrame): SessionFrame {
  return { view: cloneView(frame.view), stats: structuredClone(frame.stats) };
}

/** Applies one event in place: the shared fold, the graph totals, then compaction. */
export function applyFrameEvent(frame: SessionFrame, event: RunEvent): void {
  applyEvent(frame.view, event);
  applyStatsEvent(frame.stats, event);
  if (event.kind === 'message.completed') {
    const id = event.payload.message.id;
    delete frame.view.messages[id];
    const at = frame.view.order.lastIndexOf(id);
    if (at >= 0) frame.view.order.splice(at, 1);
  }
}

/** A pure fold: the frame after `events`, starting from `from` (not modified). */
export function foldFrame(events: Iterable<RunEvent>, from: SessionFrame = emptyFrame()): SessionFrame {
  const frame = cloneFrame(from);
  for (const event of events) applyFrameEvent(frame, event);
  return frame;
}
