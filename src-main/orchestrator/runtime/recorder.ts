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
 * Stamps every event of one session with its header (seq strictly increasing from 1, `t` in ms
 * since the session started) and hands it to the sink and then to the listeners, in that order.
 * A listener that throws is isolated from the run.
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
    if (masker === null) return this.record(agent, body);
    switch (body.kind) {
      case 'message.delta': {
        const text = masker.delta(body.payload.messageId, body.payload.text);
        if (text.length > 0)
          this.record(agent, { kind: 'message.delta', payload: { ...body.payload, text } });
        return;
      }
      case 'message.completed': {
        const messageId = body.payload.message.id;
        const rest = masker.drain(messageId);
        if (rest.length > 0)
          this.record(agent, { kind: 'message.delta', payload: { messageId, text: rest } });
        return this.record(agent, masker.maskDeep(body));
      }
      case 'session.stopped':
        masker.clear();
        return this.record(agent, masker.maskDeep(body));
      default:
        return this.record(agent, masker.maskDeep(body));
    }
  }

  flush(): void {
    this.sink.flush();
  }

  onDidEvent(listener: EventListener): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops every listener (the run was released). */
  clearListeners(): void {
    this.listeners.clear();
  }

  private record(agent: string | null, body: EventBody): void {
    this.seq += 1;
    const event = { sessionId: this.sessionId, seq: this.seq, t: this.now(), agent, ...body } as RunEvent;
    this.sink.append(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener must not break the run or other listeners.
      }
    }
  }
}
