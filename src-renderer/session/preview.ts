import type { StoredMessage } from '@shared/contract';
import type { ViewState } from '@shared/domain';
import { emptyStats } from '../graph/stats';
import type { SessionFrame } from './frame';
import { MessageLog } from './message-log';

/**
 * What the session view draws before the event log is in the renderer: the store's folded view at
 * one seq (`sessions.seek`, compacted: only in-flight messages) plus the page of completed
 * messages just before it (`sessions.messages`). The graph totals are not in a stored view, so
 * they start empty and fill in when the log has loaded.
 */
export interface Preview {
  frame: SessionFrame;
  /** The paged messages in seq order, then the in-flight ones; every entry is visible. */
  log: MessageLog;
}

export function previewOf(view: ViewState, page: readonly StoredMessage[]): Preview {
  const log = new MessageLog();
  for (const message of page) {
    if (message.seq <= view.seq) log.appendMessage(message, message.seq, message.droppedReason);
  }
  for (const id of view.order) {
    const message = view.messages[id];
    if (message && message.state === 'streaming') log.appendStarted(message, view.seq);
  }
  return { frame: { view, stats: emptyStats() }, log };
}
