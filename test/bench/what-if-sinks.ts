import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../../src-main/orchestrator';

/**
 * A sink that puts the history store behind a change it does not make (yet), to measure from
 * outside what that change would save. Bench-only: it does not keep the store's promises (a log
 * without deltas cannot replay the streaming), so it prices the next step and nothing else.
 */

/** Kinds a store that keeps each text once, and derives statuses, would not write as rows. */
const DERIVABLE: ReadonlySet<RunEvent['kind']> = new Set(['message.delta', 'agent.status']);

/** Forwards every event but token deltas and agent statuses. */
export class WithoutDerivableEvents implements EventSink {
  constructor(private readonly store: EventSink) {}

  append(event: RunEvent): void {
    if (!DERIVABLE.has(event.kind)) this.store.append(event);
  }

  flush(): void {
    this.store.flush();
  }

  whenDurable(callback: () => void): void {
    if (this.store.whenDurable) this.store.whenDurable(callback);
    else callback();
  }
}
