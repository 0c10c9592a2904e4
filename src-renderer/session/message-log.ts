import type { Message, RunEvent } from '@shared/domain';

/** One message of a session as the transcript lists it, with the span of seqs it is visible in. */
export interface LogEntry {
  id: string;
  /** Seq at which the message first appears (started, or completed when it never streamed). */
  startSeq: number;
  /** Seq at which it completed (or was dropped); Infinity while it has not. */
  endSeq: number;
  /** The final message, once completed or dropped. */
  final: Message | null;
  /** Envelope known from the start, for messages still streaming. */
  from: string;
  to: string;
  threadId: string;
  parentId: string | null;
  droppedReason: string | null;
}

/**
 * Every message of a session in the order it first appeared. Entries are appended in seq order,
 * so the messages visible at a playhead are a prefix found by binary search.
 */
export class MessageLog {
  readonly entries: LogEntry[] = [];
  /** parents[i]: index of entry i's parent when it appeared earlier, else -1 (for threading). */
  readonly parents: number[] = [];
  private readonly byId = new Map<string, number>();

  get size(): number {
    return this.entries.length;
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** Records what `event` tells about messages. Events must arrive in seq order. */
  append(event: RunEvent): void {
    switch (event.kind) {
      case 'message.started': {
        const p = event.payload;
        if (this.byId.has(p.messageId)) return;
        this.push({
          id: p.messageId,
          startSeq: event.seq,
          endSeq: Infinity,
          final: null,
          from: p.from,
          to: p.to,
          threadId: p.threadId,
          parentId: p.parentId,
          droppedReason: null,
        });
        return;
      }
      case 'message.completed':
        this.finish(event.payload.message, event.seq, null);
        return;
      case 'message.dropped':
        this.finish(event.payload.message, event.seq, event.payload.reason);
        return;
      default:
        return;
    }
  }

  /** Records a materialized message (completed at `seq`), as a page from the store gives it. */
  appendMessage(message: Message, seq: number, droppedReason: string | null): void {
    this.finish(message, seq, droppedReason);
  }

  /** Records a message still streaming at `seq`, known only from a folded view. */
  appendStarted(message: Message, seq: number): void {
    if (this.byId.has(message.id)) return;
    this.push({
      id: message.id,
      startSeq: seq,
      endSeq: Infinity,
      final: null,
      from: message.from,
      to: message.to,
      threadId: message.threadId,
      parentId: message.parentId,
      droppedReason: null,
    });
  }

  /** How many entries have started at or before `seq`. */
  countAt(seq: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.entries[mid] as LogEntry).startSeq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private finish(message: Message, seq: number, droppedReason: string | null): void {
    const index = this.byId.get(message.id);
    if (index === undefined) {
      this.push({
        id: message.id,
        startSeq: seq,
        endSeq: seq,
        final: message,
        from: message.from,
        to: message.to,
        threadId: message.threadId,
        parentId: message.parentId,
        droppedReason,
      });
      return;
    }
    const entry = this.entries[index] as LogEntry;
    // A drop follows the completion of the same message: it stays finished from its completion
    // on (the fold drops it from the in-flight messages there), now marked as dropped.
    if (droppedReason === null || entry.final === null) entry.endSeq = seq;
    entry.final = message;
    entry.to = message.to;
    entry.droppedReason = droppedReason;
  }

  private push(entry: LogEntry): void {
    this.parents.push(entry.parentId === null ? -1 : (this.byId.get(entry.parentId) ?? -1));
    this.byId.set(entry.id, this.entries.length);
    this.entries.push(entry);
  }
}
