import type { SessionEdgeStats, StoredMessage } from '@shared/contract';
import type { ViewState } from '@shared/domain';
import { edgeKey, emptyStats, type GraphStats } from './stats';
import type { SessionFrame } from './frame';
import { MessageLog } from './message-log';
import { Timeline } from './timeline';

/**
 * What the session view draws before the event log is in the renderer: the store's folded view at
 * one seq (`sessions.seek`, compacted: only in-flight messages) plus the page of completed
 * messages just before it (`sessions.messages`). The graph totals are not in a stored view: they
 * come from `sessions.edges` at the same seq (empty when the backend could not answer; routing
 * edges fill in when the log has loaded).
 */
export interface Preview {
  frame: SessionFrame;
  /** The paged messages in seq order, then the in-flight ones; every entry is visible. */
  log: MessageLog;
}

/** Graph totals from the store's SQL counts, in the shape the event fold builds. */
export function statsOf(edges: SessionEdgeStats | null): GraphStats {
  const stats = emptyStats();
  if (!edges) return stats;
  for (const { name, messages, tokens, lastSeq } of edges.agents)
    stats.agents[name] = { messages, tokens, lastSeq };
  for (const { from, to, kind, count, lastSeq } of edges.edges)
    stats.edges[edgeKey(kind, from, to)] = { from, to, kind, count, lastSeq };
  return stats;
}

export function previewOf(
  view: ViewState,
  page: readonly StoredMessage[],
  edges: SessionEdgeStats | null = null,
): Preview {
  const log = new MessageLog();
  for (const message of page) {
    if (message.seq <= view.seq) log.appendMessage(message, message.seq, message.droppedReason);
  }
  for (const id of view.order) {
    const message = view.messages[id];
    if (message && message.state === 'streaming') log.appendStarted(message, view.seq);
  }
  return { frame: { view, stats: statsOf(edges) }, log };
}

/** A window of the log starting at the store's view `view` (see Timeline's base). */
export function windowAt(
  view: ViewState,
  page: readonly StoredMessage[],
  edges: SessionEdgeStats | null = null,
): Timeline {
  const { frame, log } = previewOf(view, page, edges);
  return new Timeline({ seq: view.seq, frame, log });
}
