import type { RunEvent } from '@shared/domain';

/**
 * Where the runtime sends every event it produces. The history store implements it; the
 * orchestrator knows nothing else about storage. `append` must not block for long: stores batch.
 */
export interface EventSink {
  append(event: RunEvent): void;
  /** Commits anything buffered (called when a message completes and when a run ends). */
  flush(): void;
}
