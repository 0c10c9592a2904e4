import type { EventBody, RunEvent } from '@shared/domain';
import type { EventSink } from '../sink';
import type { SecretMasker } from './secret-masker';

export type EventListener = (event: RunEvent) => void;

/** Unsubscribes a listener. */
export type Unsubscribe = () => void;

export interface RecorderOptions {
  /** Milliseconds, monotonic (default performance.now). */
  clock?: () => number;
  /** Masks secrets in every event before anyone sees it. */
  masker?: SecretMasker;
  /** Seq of the session's last event when an existing session goes on (the next one is +1). */
  lastSeq?: number;
  /** Milliseconds since the session started at which this recorder's clock begins. */
  startT?: number;
}

/**
 * Milliseconds a streamed piece may wait for the pieces after it before it is recorded; with the
 * store's group commit window (16 ms) a live view shows streamed text within about 25 ms.
 */
export const DELTA_COALESCE_MS = 8;

/** Text of one streaming message that arrived since its last recorded delta. */
interface PendingDelta {
  agent: string | null;
  messageId: string;
  text: string;
  /** When the first of these pieces arrived (the recorded delta's `t`). */
  t: number;
}

/**
 * Stamps every event of one session with its header (seq strictly increasing from 1, `t` in ms
 * since the session started), hands it to the sink, and shows it to the listeners once the sink
 * says it is durable (EventSink.whenDurable), in order. A listener that throws is isolated from
 * the run.
 *
 * Streamed pieces of a message that arrive within DELTA_COALESCE_MS of each other become one
 * `message.delta` (a model streaming many small tokens costs one event per frame, not one per
 * token). Pending pieces are recorded before any other event and before `flush`, so a message's
 * deltas always come before its completion and the log's order is the order things happened.
 *
 * Every event passes here before it is stored or relayed, so this is where secrets are masked:
 * the store (events, messages, full-text index), exports, the CLI and every transport get text
 * in which the keys in use are already replaced. Streamed deltas are masked per message; a delta
 * that could end in the start of a key is held back until the next one (or the message's end).
 */
export class EventRecorder {
  private seq: number;
  private readonly startT: number;
  private readonly listeners = new Set<EventListener>();
  private readonly startedAt: number;
  private readonly clock: () => number;
  private readonly masker: SecretMasker | null;
  /** Streamed text not recorded yet, by message id (insertion order is arrival order). */
  private readonly deltas = new Map<string, PendingDelta>();
  private deltaTimer: NodeJS.Timeout | null = null;
  /** Recorded events the sink has not yet said are durable (only kept while someone listens). */
  private held: RunEvent[] = [];
  /** Durable events being shown (a listener may emit more while they are). */
  private showing: RunEvent[] = [];
  private waitingForSink = false;
  private delivering = false;

  constructor(
    readonly sessionId: string,
    private readonly sink: EventSink,
    options: RecorderOptions = {},
  ) {
    this.clock = options.clock ?? (() => performance.now());
    this.masker = options.masker?.active ? options.masker : null;
    this.seq = options.lastSeq ?? 0;
    this.startT = options.startT ?? 0;
    this.startedAt = this.clock();
  }

  /** Milliseconds since the session started. */
  now(): number {
    return Math.max(0, Math.round((this.startT + this.clock() - this.startedAt) * 1000) / 1000);
  }

  emit(agent: string | null, body: EventBody): void {
    const masker = this.masker;
    switch (body.kind) {
      case 'message.delta':
        return this.delta(agent, body.payload.messageId, body.payload.text);
      case 'message.completed': {
        if (masker !== null) {
          const messageId = body.payload.message.id;
          const rest = masker.drain(messageId);
          if (rest.length > 0) this.addDelta(agent, messageId, rest);
        }
        this.recordDeltas();
        return this.record(agent, masker === null ? body : masker.maskDeep(body));
      }
      case 'session.stopped':
        masker?.clear();
        this.recordDeltas();
        return this.record(agent, masker === null ? body : masker.maskDeep(body));
      case 'agent.status':
      case 'session.status':
      case 'usage':
        // Statuses, numbers and generated ids: no text a key could be in.
        this.recordDeltas();
        return this.record(agent, body);
      default:
        this.recordDeltas();
        return this.record(agent, masker === null ? body : masker.maskDeep(body));
    }
  }

  /** A streamed piece of a message: `emit` of a `message.delta`, without building its body first. */
  delta(agent: string | null, messageId: string, text: string): void {
    const masked = this.masker === null ? text : this.masker.delta(messageId, text);
    if (masked.length > 0) this.addDelta(agent, messageId, masked);
  }

  /** Records pending deltas and makes everything durable now; the listeners see it before this returns. */
  flush(): void {
    this.recordDeltas();
    this.sink.flush();
  }

  /**
   * Records pending deltas and resolves once everything is durable, without blocking the thread
   * while the sink waits for another writer (EventSink.settle); then flushes, which throws the
   * sink's failure if its commit failed.
   */
  async settle(): Promise<void> {
    this.recordDeltas();
    await this.sink.settle?.();
    this.sink.flush();
  }

  onDidEvent(listener: EventListener): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops every listener (the run was released). */
  clearListeners(): void {
    this.listeners.clear();
    this.held = [];
  }

  private addDelta(agent: string | null, messageId: string, text: string): void {
    const pending = this.deltas.get(messageId);
    if (pending !== undefined) {
      pending.text += text;
      return;
    }
    this.deltas.set(messageId, { agent, messageId, text, t: this.now() });
    this.deltaTimer ??= setTimeout(this.recordDeltasFromTimer, DELTA_COALESCE_MS);
  }

  private readonly recordDeltasFromTimer = (): void => {
    this.deltaTimer = null;
    try {
      this.recordDeltas();
    } catch {
      // The sink refused (the run's next event or flush meets the same failure and ends the run).
    }
  };

  private recordDeltas(): void {
    if (this.deltas.size === 0) return;
    if (this.deltaTimer !== null) {
      clearTimeout(this.deltaTimer);
      this.deltaTimer = null;
    }
    const pending = [...this.deltas.values()];
    this.deltas.clear();
    for (const delta of pending) {
      this.record(
        delta.agent,
        { kind: 'message.delta', payload: { messageId: delta.messageId, text: delta.text } },
        delta.t,
      );
    }
  }

  private record(agent: string | null, body: EventBody, t = this.now()): void {
    this.seq += 1;
    const event = { sessionId: this.sessionId, seq: this.seq, t, agent, ...body } as RunEvent;
    this.sink.append(event);
    if (this.listeners.size === 0) return;
    this.held.push(event);
    if (this.waitingForSink) return;
    if (this.sink.whenDurable === undefined) return this.showDurable();
    this.waitingForSink = true;
    this.sink.whenDurable(this.showDurable);
  }

  /** Everything held is durable now: show it, in order (also what listeners emit meanwhile). */
  private readonly showDurable = (): void => {
    this.waitingForSink = false;
    const durable = this.held;
    this.held = [];
    if (this.showing.length === 0) this.showing = durable;
    else for (const event of durable) this.showing.push(event);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let index = 0; index < this.showing.length; index += 1) {
        const event = this.showing[index] as RunEvent;
        for (const listener of this.listeners) {
          try {
            listener(event);
          } catch {
            // A faulty listener must not break the run or other listeners.
          }
        }
      }
    } finally {
      this.showing = [];
      this.delivering = false;
    }
  };
}
