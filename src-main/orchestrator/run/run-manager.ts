import { FINAL_STATUSES, type RunEvent } from '@shared/domain';
import { startRun } from './run-session';
import type { RunHandle, StartRunOptions } from './run-types';

/** Settings every run of a manager shares; each start may override them. */
export type RunDefaults = Omit<StartRunOptions, 'fleet' | 'task'>;

export type RunRequest = Pick<StartRunOptions, 'fleet' | 'task'> & Partial<RunDefaults>;

export interface RunManagerOptions {
  /**
   * Finished runs kept so they can be continued (default 32); once more have finished, the one
   * that finished longest ago is released: forgotten by the manager, its listeners dropped, so a
   * long-lived process does not grow with every run. Its session stays in the store.
   */
  keepFinished?: number;
}

export const DEFAULT_KEEP_FINISHED = 32;

interface ManagedRun {
  handle: RunHandle;
  /** Stops relaying the run's events. */
  detach(): void;
}

/**
 * Keeps the runs of one app: starts them with shared defaults (sink, env, file root, retries),
 * finds them by session id and relays every run's events to its own listeners. Running runs are
 * always kept; finished ones up to `keepFinished` (a continued run counts as running again).
 */
export class RunManager {
  private readonly runs = new Map<string, ManagedRun>();
  /** Session ids of finished runs, longest finished first. */
  private readonly finished = new Set<string>();
  private readonly listeners = new Set<(event: RunEvent) => void>();
  private readonly keepFinished: number;

  constructor(
    private readonly defaults: RunDefaults,
    options: RunManagerOptions = {},
  ) {
    this.keepFinished = Math.max(0, Math.floor(options.keepFinished ?? DEFAULT_KEEP_FINISHED));
  }

  start(request: RunRequest): RunHandle {
    const handle = startRun({ ...this.defaults, ...request });
    const sessionId = handle.sessionId;
    const detach = handle.onDidEvent((event) => {
      for (const listener of this.listeners) listener(event);
      if (event.kind === 'session.stopped') this.didFinish(sessionId);
      else if (event.kind === 'session.continued') this.finished.delete(sessionId);
    });
    this.runs.set(sessionId, { handle, detach });
    return handle;
  }

  /** The run, while it is going or one of the finished runs still kept; undefined once released. */
  get(sessionId: string): RunHandle | undefined {
    return this.runs.get(sessionId)?.handle;
  }

  /** Lets go of a finished run this manager keeps (its session goes on from the store instead). */
  forget(sessionId: string): void {
    const run = this.runs.get(sessionId);
    if (!run || !FINAL_STATUSES.includes(run.handle.status)) return;
    this.finished.delete(sessionId);
    this.release(sessionId);
  }

  list(): RunHandle[] {
    return [...this.runs.values()].map((run) => run.handle);
  }

  onDidEvent(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Cancels every run and waits for them to end. */
  async stopAll(): Promise<void> {
    const handles = this.list();
    for (const handle of handles) handle.stop();
    await Promise.allSettled(handles.map((handle) => handle.done));
  }

  private didFinish(sessionId: string): void {
    this.finished.delete(sessionId);
    this.finished.add(sessionId);
    while (this.finished.size > this.keepFinished) {
      const oldest = this.finished.values().next().value as string;
      this.finished.delete(oldest);
      this.release(oldest);
    }
  }

  private release(sessionId: string): void {
    const run = this.runs.get(sessionId);
    if (!run) return;
    this.runs.delete(sessionId);
    run.detach();
    run.handle.release();
  }
}
