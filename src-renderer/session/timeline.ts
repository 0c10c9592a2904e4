import type { Message, RunEvent } from '@shared/domain';
import { applyFrameEvent, cloneFrame, emptyFrame, type SessionFrame } from './frame';
import { MessageLog, type LogEntry } from './message-log';

/** A compacted frame is kept every this many events, so any seek folds at most this many. */
export const SNAPSHOT_EVERY = 500;

export type AppendResult = 'applied' | 'duplicate' | 'gap';

/**
 * A session's event log held in the renderer, with the frame at its end (`head`), periodic
 * snapshots for seeking, and the message log for the transcript. Live runs append to it; replay
 * reads frames at any seq from it. Nothing here knows about Vue or the bridge.
 */
export class Timeline {
  readonly events: RunEvent[] = [];
  readonly log = new MessageLog();
  /** Seqs of message.completed / message.dropped events, for stepping message by message. */
  readonly messageSeqs: number[] = [];
  /** Seqs where each agent began a turn (its message started or, unstreamed, completed). */
  readonly turns = new Map<string, number[]>();
  private readonly snapshots: SessionFrame[] = [];
  private readonly head: SessionFrame = emptyFrame();
  private cursor: SessionFrame | null = null;
  private cursorSeq = 0;

  /** Seq of the last event held (events are contiguous from seq 1). */
  get lastSeq(): number {
    return this.events.length;
  }

  /** Milliseconds since session start of the last event held. */
  get lastT(): number {
    return this.events[this.events.length - 1]?.t ?? 0;
  }

  /** Appends the next event. Anything but exactly lastSeq + 1 is refused. */
  append(event: RunEvent): AppendResult {
    if (event.seq <= this.lastSeq) return 'duplicate';
    if (event.seq !== this.lastSeq + 1) return 'gap';
    this.events.push(event);
    applyFrameEvent(this.head, event);
    const before = this.log.size;
    this.log.append(event);
    if (this.log.size > before) {
      const entry = this.log.entries[before] as LogEntry;
      const list = this.turns.get(entry.from) ?? [];
      list.push(event.seq);
      this.turns.set(entry.from, list);
    }
    if (event.kind === 'message.completed' || event.kind === 'message.dropped')
      this.messageSeqs.push(event.seq);
    if (event.seq % SNAPSHOT_EVERY === 0) this.snapshots.push(cloneFrame(this.head));
    return 'applied';
  }

  appendAll(events: readonly RunEvent[]): AppendResult {
    for (const event of events) {
      const result = this.append(event);
      if (result === 'gap') return 'gap';
    }
    return 'applied';
  }

  /**
   * The frame right after event `seq` (0 = before any). The returned object is shared and changes
   * on the next call: read it, do not keep it.
   */
  frameAt(seq: number): SessionFrame {
    const target = Math.max(0, Math.min(seq, this.lastSeq));
    if (target === this.lastSeq) return this.head;
    if (!this.cursor || target < this.cursorSeq || target - this.cursorSeq > SNAPSHOT_EVERY) {
      const index = Math.floor(target / SNAPSHOT_EVERY) - 1;
      const snapshot = index >= 0 ? this.snapshots[index] : undefined;
      this.cursor = snapshot ? cloneFrame(snapshot) : emptyFrame();
      this.cursorSeq = snapshot ? (index + 1) * SNAPSHOT_EVERY : 0;
    }
    for (let s = this.cursorSeq + 1; s <= target; s++)
      applyFrameEvent(this.cursor, this.events[s - 1] as RunEvent);
    this.cursorSeq = target;
    return this.cursor;
  }

  /** A message as it stood right after `seq`, given the frame at that seq. */
  messageAt(entry: LogEntry, frame: SessionFrame, seq: number): Message {
    if (entry.final && entry.endSeq <= seq) return entry.final;
    const inFlight = frame.view.messages[entry.id];
    if (inFlight) return inFlight;
    return {
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
    };
  }

  /** The last seq whose event happened at or before `t` (ms since start); 0 when none. */
  seqAtTime(t: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.events[mid] as RunEvent).t <= t) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  timeAt(seq: number): number {
    return seq <= 0 ? 0 : (this.events[Math.min(seq, this.lastSeq) - 1]?.t ?? 0);
  }

  /** The first message boundary after `seq`, or the one before it when `direction` is -1. */
  messageStep(seq: number, direction: 1 | -1): number {
    const seqs = this.messageSeqs;
    if (direction === 1) return seqs.find((s) => s > seq) ?? this.lastSeq;
    for (let i = seqs.length - 1; i >= 0; i--) if ((seqs[i] as number) < seq) return seqs[i] as number;
    return 0;
  }
}
