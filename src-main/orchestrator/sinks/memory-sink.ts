import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../sink';

/** Keeps events in memory (tests, previews); an event is "durable" as soon as it is appended. */
export class MemorySink implements EventSink {
  readonly events: RunEvent[] = [];
  flushes = 0;

  append(event: RunEvent): void {
    this.events.push(event);
  }

  flush(): void {
    this.flushes += 1;
  }

  whenDurable(callback: () => void): void {
    callback();
  }

  /** Events of one kind, typed. */
  ofKind<K extends RunEvent['kind']>(kind: K): Extract<RunEvent, { kind: K }>[] {
    return this.events.filter((event): event is Extract<RunEvent, { kind: K }> => event.kind === kind);
  }
}
