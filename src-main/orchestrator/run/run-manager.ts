import type { RunEvent } from '@shared/domain';
import { startRun } from './run-session';
import type { RunHandle, StartRunOptions } from './run-types';

/** Settings every run of a manager shares; each start may override them. */
export type RunDefaults = Omit<StartRunOptions, 'fleet' | 'task'>;

export type RunRequest = Pick<StartRunOptions, 'fleet' | 'task'> & Partial<RunDefaults>;

/**
 * Keeps the runs of one app: starts them with shared defaults (sink, env, file root, retries),
 * finds them by session id and relays every run's events to its own listeners.
 */
export class RunManager {
  private readonly runs = new Map<string, RunHandle>();
  private readonly listeners = new Set<(event: RunEvent) => void>();

  constructor(private readonly defaults: RunDefaults) {}

  start(request: RunRequest): RunHandle {
    const handle = startRun({ ...this.defaults, ...request });
    this.runs.set(handle.sessionId, handle);
    handle.onDidEvent((event) => {
      for (const listener of this.listeners) listener(event);
    });
    return handle;
  }

  get(sessionId: string): RunHandle | undefined {
    return this.runs.get(sessionId);
  }

  list(): RunHandle[] {
    return [...this.runs.values()];
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
}
