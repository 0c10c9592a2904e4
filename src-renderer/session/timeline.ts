import type { Message, RunEvent } from '@shared/domain';
import { applyFrameEvent, cloneFrame, emptyFrame, type SessionFrame } from './frame';
import { MessageLog, type LogEntry } from './message-log';

/** A compacted frame is kept every this many events, so any seek folds at most this many. */
export const SNAPSHOT_EVERY = 500;

export type AppendResult = 'applied' | 'duplicate' | 'gap';

/**
 * A quiet stretch longer than this (ms of session time) between two events is an idle gap: replay
 * plays it as this long, at any speed, and the scrubber marks it.
 */
export const IDLE_GAP_LIMIT_MS = 2_000;

/** An idle gap: nothing happened for `ms` milliseconds before event `seq`. */
export interface IdleGap {
  seq: number;
  ms: number;
}

/**
 * Where a window of the log starts: the frame right after event `seq` (from the store's folded
 * view and graph totals) and the messages known by then (a page of them).
 */
export interface TimelineBase {
  seq: number;
  frame: SessionFrame;
  log: MessageLog;
}

/**
 * A session's event log held in the renderer, with the frame at its end (`head`), periodic
 * snapshots for seeking, and the message log for the transcript. Live runs append to it; replay
 * reads frames at any seq from it. Nothing here knows about Vue or the bridge.
 *
 * Without a base it holds the whole log from seq 1. With one it is a window of a long log: the
 * events after `baseSeq` only, starting from the base's frame and messages, so replay around a
 * playhead never needs the events before it.
 */
export class Timeline {
  readonly events: RunEvent[] = [];
  readonly log: MessageLog;
  /** Seqs of message.completed / message.dropped events, for stepping message by message. */
  readonly messageSeqs: number[] = [];
  /** Seqs where each agent began a turn (its message started or, unstreamed, completed). */
  readonly turns = new Map<string, number[]>();
  /** The idle gaps between the events held (longer than IDLE_GAP_LIMIT_MS), in seq order. */
  readonly idleGaps: IdleGap[] = [];
  /** The seq the held events follow (0 for the whole log). */
  readonly baseSeq: number;
  private readonly baseFrame: SessionFrame;
  private readonly snapshots: SessionFrame[] = [];
  private readonly head: SessionFrame;
  private cursor: SessionFrame | null = null;
  private cursorSeq = 0;

  constructor(base?: TimelineBase) {
    this.baseSeq = base?.seq ?? 0;
    this.baseFrame = base ? cloneFrame(base.frame) : emptyFrame();
    this.head = cloneFrame(this.baseFrame);
    this.log = base?.log ?? new MessageLog();
    for (const entry of this.log.entries)
      if (entry.final && entry.endSeq <= this.baseSeq) this.messageSeqs.push(entry.endSeq);
    this.messageSeqs.sort((a, b) => a - b);
  }

  /** Seq of the last event held (events are contiguous from `baseSeq + 1`). */
  get lastSeq(): number {
    return this.baseSeq + this.events.length;
  }

  /** Milliseconds since session start of the last event held (the base's time when none). */
  get lastT(): number {
    return this.events[this.events.length - 1]?.t ?? this.baseFrame.view.t;
  }

  /** Whether the frame at `seq` can be made from what is held. */
  covers(seq: number): boolean {
    return seq >= this.baseSeq && seq <= this.lastSeq;
  }

  /** Appends the next event. Anything but exactly lastSeq + 1 is refused. */
  append(event: RunEvent): AppendResult {
    if (event.seq <= this.lastSeq) return 'duplicate';
    if (event.seq !== this.lastSeq + 1) return 'gap';
    const quiet = event.t - this.lastT;
    if (this.events.length > 0 && quiet > IDLE_GAP_LIMIT_MS)
      this.idleGaps.push({ seq: event.seq, ms: quiet });
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
    if ((event.seq - this.baseSeq) % SNAPSHOT_EVERY === 0) this.snapshots.push(cloneFrame(this.head));
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
    const base = this.baseSeq;
    const target = Math.max(base, Math.min(seq, this.lastSeq));
    if (target === this.lastSeq) return this.head;
    if (!this.cursor || target < this.cursorSeq || target - this.cursorSeq > SNAPSHOT_EVERY) {
      const index = Math.floor((target - base) / SNAPSHOT_EVERY) - 1;
      const snapshot = index >= 0 ? this.snapshots[index] : undefined;
      this.cursor = cloneFrame(snapshot ?? this.baseFrame);
      this.cursorSeq = snapshot ? base + (index + 1) * SNAPSHOT_EVERY : base;
    }
    for (let s = this.cursorSeq + 1; s <= target; s++)
      applyFrameEvent(this.cursor, this.events[s - base - 1] as RunEvent);
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

  /** The last seq held whose event happened at or before `t` (ms since start); `baseSeq` when none. */
  seqAtTime(t: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.events[mid] as RunEvent).t <= t) low = mid + 1;
      else high = mid;
    }
    return this.baseSeq + low;
  }

  timeAt(seq: number): number {
    if (seq <= this.baseSeq) return seq <= 0 ? 0 : this.baseFrame.view.t;
    return this.events[Math.min(seq, this.lastSeq) - this.baseSeq - 1]?.t ?? 0;
  }

  /** The first message boundary after `seq`, or the one before it when `direction` is -1. */
  messageStep(seq: number, direction: 1 | -1): number {
    return this.messageBoundary(seq, direction) ?? (direction === 1 ? this.lastSeq : 0);
  }

  /** Like `messageStep`, but null when what is held has no boundary that way. */
  messageBoundary(seq: number, direction: 1 | -1): number | null {
    const seqs = this.messageSeqs;
    if (direction === 1) return seqs.find((s) => s > seq) ?? null;
    for (let i = seqs.length - 1; i >= 0; i--) if ((seqs[i] as number) < seq) return seqs[i] as number;
    return null;
  }
}
