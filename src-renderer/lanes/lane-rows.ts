import { USER, type EventOf, type RunEvent } from '@shared/domain';
import type { LogEntry, MessageLog } from '../session/message-log';

/**
 * What one row of the sequence lens shows. A message is an arrow from its sender to its
 * receivers; the rest are marks on one agent's lane.
 */
export const ROW_KINDS = [
  'message',
  'handoff',
  'human-ask',
  'human-answer',
  'error',
  'routing',
  'continued',
] as const;
export type LaneRowKind = (typeof ROW_KINDS)[number];

/** A mark that is not a message: its lane (by name) and its text. */
export interface LaneNote {
  kind: Exclude<LaneRowKind, 'message'>;
  agent: string | null;
  /** The other end of a handoff, the agent a routing decision chose. */
  target: string | null;
  text: string;
}

/**
 * The rows of the sequence lens, in seq order (time flows down), as parallel arrays so a
 * 100k-message session costs a few numbers per row. A message row appears at the seq its
 * transcript entry appears (`MessageLog`), so the rows up to a playhead are a prefix found by
 * binary search and the lens shows the same messages as the transcript.
 */
export class LaneRows {
  readonly kinds: LaneRowKind[] = [];
  readonly seqs: number[] = [];
  /** Milliseconds since session start. */
  readonly times: number[] = [];
  /** Message rows: the index of the message in the log; others: an index into `notes`. */
  readonly refs: number[] = [];
  readonly notes: LaneNote[] = [];
  /** Message ids that a handoff event names: their arrows are drawn as handoffs. */
  readonly handoffMessages = new Set<string>();

  get size(): number {
    return this.kinds.length;
  }

  /** How many rows appear at or before `seq`. */
  countAt(seq: number): number {
    let low = 0;
    let high = this.seqs.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.seqs[mid] as number) <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The row of the log's message `logIndex`, or -1. */
  rowOfMessage(logIndex: number, startSeq: number): number {
    const end = this.countAt(startSeq);
    for (let row = end - 1; row >= 0 && (this.seqs[row] as number) >= startSeq; row--)
      if (this.kinds[row] === 'message' && this.refs[row] === logIndex) return row;
    return -1;
  }

  push(kind: LaneRowKind, seq: number, t: number, ref: number): void {
    this.kinds.push(kind);
    this.seqs.push(seq);
    this.times.push(t);
    this.refs.push(ref);
  }

  pushNote(seq: number, t: number, note: LaneNote): void {
    this.notes.push(note);
    this.push(note.kind, seq, t, this.notes.length - 1);
  }
}

/**
 * Builds lane rows from a session's events as they arrive (a live run appends; a loaded log is
 * fed in slices). `log` must be the message log that has already seen the same events (the
 * timeline's), so message rows can name their log entries.
 */
export class LaneRowBuilder {
  readonly rows = new LaneRows();
  private nextMessage = 0;

  /**
   * A window of a long log starts from the messages known at its start, `baseSeq` (a page of
   * them, and those in flight there): each gets its row at the seq it appears, at its own time
   * or, still in flight, at `baseT`. Messages of the events after `baseSeq` get theirs as those
   * events are applied, whether or not the log has already seen them.
   */
  constructor(
    private readonly log: MessageLog,
    baseSeq = 0,
    baseT = 0,
  ) {
    const known = log.countAt(baseSeq);
    for (let index = 0; index < known; index++) {
      const entry = log.entries[index] as LogEntry;
      this.rows.push('message', entry.startSeq, entry.final?.t ?? baseT, index);
    }
    this.nextMessage = known;
  }

  apply(event: RunEvent): void {
    switch (event.kind) {
      case 'message.started':
        this.message(event.payload.messageId, event);
        return;
      case 'message.completed':
      case 'message.dropped':
        this.message(event.payload.message.id, event);
        return;
      case 'handoff': {
        const { from, to, messageId } = event.payload;
        // The message a handoff names was said before it: the log (ahead of the rows) knows it.
        if (messageId !== null && this.log.indexOf(messageId) !== undefined) {
          this.rows.handoffMessages.add(messageId);
          return;
        }
        this.rows.pushNote(event.seq, event.t, {
          kind: 'handoff',
          agent: from,
          target: to,
          text: `hands off to ${to}`,
        });
        return;
      }
      case 'human.requested':
        this.rows.pushNote(event.seq, event.t, {
          kind: 'human-ask',
          agent: event.agent,
          target: USER,
          text: askText(event.payload),
        });
        return;
      case 'human.given':
        this.rows.pushNote(event.seq, event.t, {
          kind: 'human-answer',
          agent: event.agent,
          target: USER,
          text: event.payload.text,
        });
        return;
      case 'error':
        this.rows.pushNote(event.seq, event.t, {
          kind: 'error',
          agent: event.agent,
          target: null,
          text: event.payload.message,
        });
        return;
      case 'routing.decision':
        this.rows.pushNote(event.seq, event.t, {
          kind: 'routing',
          agent: event.payload.chosen,
          target: null,
          text: event.payload.reason
            ? `chosen to speak: ${event.payload.reason}`
            : `chosen to speak next (of ${event.payload.candidates.length})`,
        });
        return;
      case 'session.continued':
        this.rows.pushNote(event.seq, event.t, {
          kind: 'continued',
          agent: USER,
          target: null,
          text: `follow-up: ${event.payload.task}`,
        });
        return;
      case 'session.started':
      case 'session.stopped':
      case 'session.status':
      case 'agent.status':
      case 'message.delta':
      case 'tool.requested':
      case 'tool.executed':
      case 'termination.check':
      case 'usage':
      case 'span.unmapped':
      case 'model.call':
        return;
      default: {
        const unknown: never = event;
        void unknown;
      }
    }
  }

  /** Adds the row of the log entry that `event` made appear, if it made one appear. */
  private message(id: string, event: RunEvent): void {
    const index = this.log.indexOf(id);
    if (index === undefined || index < this.nextMessage) return;
    // Entries appear in the log in seq order, so each new one is the next index.
    const entry = this.log.entries[index];
    if (!entry || entry.startSeq !== event.seq) return;
    this.nextMessage = index + 1;
    this.rows.push('message', event.seq, event.t, index);
  }
}

/** A question's mark: the prompt, or for a tool call waiting for approval, which call with what. */
function askText(payload: EventOf<'human.requested'>['payload']): string {
  const approval = payload.approval;
  if (!approval) return payload.prompt;
  const tool = approval.server && approval.tool ? `${approval.server}/${approval.tool}` : approval.name;
  return `waits for approval to call ${tool} ${approval.arguments}`;
}
