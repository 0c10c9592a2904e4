import type { Message } from '@shared/domain';
import type { SessionDisplay } from '../session/display';
import type { LogEntry } from '../session/message-log';

/**
 * A log entry's message as it stands at the display's playhead: final once it completed by then,
 * else as it is in flight (an empty streaming message when the display has not got it). The
 * transcript and the sequence lens both read messages through this, so they always agree.
 */
export function messageAtPlayhead(entry: LogEntry, display: SessionDisplay | null): Message {
  const seq = display?.seq ?? 0;
  if (entry.final && entry.endSeq <= seq) return entry.final;
  return (
    display?.inFlight[entry.id] ?? {
      id: entry.id,
      threadId: entry.threadId,
      parentId: entry.parentId,
      from: entry.from,
      to: entry.to,
      kind: 'text',
      content: '',
      meta: {},
      state: 'streaming',
      t: 0,
    }
  );
}
