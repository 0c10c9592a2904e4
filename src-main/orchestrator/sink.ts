import type { RunEvent } from '@shared/domain';

/**
 * Where the runtime sends every event it produces. The history store implements it; the
 * orchestrator knows nothing else about storage. `append` must not block for long: stores commit
 * in groups.
 *
 * Durability before display: the runtime shows an event to its listeners (every surface: windows,
 * browser tabs, the CLI, the API's onEvent, the live OTLP export) only once the sink says it is
 * durable through `whenDurable`, so whatever a surface has shown survives a crash of the process.
 */
export interface EventSink {
  append(event: RunEvent): void;
  /** Makes everything appended so far durable now (called when a run ends). Throws on failure. */
  flush(): void;
  /**
   * Calls `callback` once every event appended before this call is durable: at once (synchronously)
   * when nothing is waiting, else after the commit that holds them. A commit that fails keeps its
   * callbacks for the next one. A sink without this method is durable as soon as `append` returns.
   */
  whenDurable?(callback: () => void): void;
  /**
   * Resolves once every event appended before this call is durable, asking for that now, without
   * blocking the thread meanwhile (where `flush` may wait for another writer of the same store).
   * A sink without this method is flushed instead.
   */
  settle?(): Promise<void>;
}
