import type { EventBody, RunEvent } from '@shared/domain';
import type { EventSink } from '../sink';

export type EventListener = (event: RunEvent) => void;

/** Unsubscribes a listener. */
export type Unsubscribe = () => void;

/**
 * Stamps every event of one session with its header (seq strictly increasing from 1, `t` in ms
 * since the session started) and hands it to the sink and then to the listeners, in that order.
 * A listener that throws is isolated from the run.
 */
export class EventRecorder {
  private seq = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly startedAt: number;

  constructor(
    readonly sessionId: string,
    private readonly sink: EventSink,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.startedAt = clock();
  }

  /** Milliseconds since the session started. */
  now(): number {
    return Math.max(0, Math.round((this.clock() - this.startedAt) * 1000) / 1000);
  }

  emit(agent: string | null, body: EventBody): RunEvent {
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
    return event;
  }

  flush(): void {
    this.sink.flush();
  }

  onDidEvent(listener: EventListener): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
