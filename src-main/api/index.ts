/**
 * The programmatic entry for Node scripts (package.json "exports" `fleetscope/api`, built to
 * out/main/api.js). It runs exactly what `fleetscope run` runs: the same composition root, run
 * service, runtime and SQLite store.
 *
 *   import { runFleet } from 'fleetscope/api';
 *   const summary = await runFleet({ fleet: 'fleet.json', task: 'Plan a trip', dataDir: './data' });
 */
import type { RunEvent } from '@shared/domain';
import {
  AppError,
  checkFleet,
  createApp,
  defaultDataDir,
  loadFleetFile,
  type FleetscopeApp,
  type RunSummary,
  type SessionListItem,
} from '../app';

export { AppError } from '../app';
export type { RunSummary, SessionListItem } from '../app';
export type { RunEvent, Fleet, FleetInput } from '@shared/domain';

/** An open store: the same one the app, the web host and the CLI use in that data folder. */
export interface FleetscopeStore {
  readonly dataDir: string;
  /** Sessions newest first (at most `limit`, default 50). */
  listSessions(options?: {
    limit?: number;
    search?: string;
  }): Promise<{ items: SessionListItem[]; total: number }>;
  /** Commits what is buffered and closes the store (waits for runs started through it to stop). */
  close(): Promise<void>;
  /** @internal The composition root behind this store. */
  readonly app: FleetscopeApp;
}

function openApp(dataDir: string, env: NodeJS.ProcessEnv): FleetscopeApp {
  return createApp({
    dataDir,
    surface: 'cli',
    env,
    seedSamples: false,
    pingIntervalMs: 0,
    watchStore: false,
  });
}

/** Opens (creating if needed) the store in `dataDir` (default: the app's own data folder). */
export function openStore(
  dataDir: string = defaultDataDir(),
  env: NodeJS.ProcessEnv = process.env,
): FleetscopeStore {
  const app = openApp(dataDir, env);
  return {
    dataDir,
    app,
    listSessions: (options = {}) => app.call('sessions.list', { limit: options.limit ?? 50, ...options }),
    close: () => app.close(),
  };
}

export interface RunFleetOptions {
  /** A fleet object (the JSON a fleet file holds) or the path of a fleet file. */
  fleet: unknown;
  task: string;
  /** Where the store is (default: the app's data folder); ignored when `store` is given. */
  dataDir?: string;
  /** An open store to record into (kept open afterwards). */
  store?: FleetscopeStore;
  /** Replaces every LLM agent's base URL, model or API key variable (as `fleetscope run` flags do). */
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  /** Where API key variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Caps the session's messages on top of the fleet's own conditions. */
  maxMessages?: number;
  /** Every event of the run as it happens (token deltas included). */
  onEvent?: (event: RunEvent) => void;
  /** Aborting it cancels the run; the promise then resolves with status "stopped". */
  signal?: AbortSignal;
}

/**
 * Runs a fleet on a task and resolves with the run's summary (session id, status, stop reason,
 * message count, tokens, duration) once a termination condition, a failure or `signal` ends it.
 * Rejects with an AppError (code `invalid-input` or `forbidden`) when the fleet cannot run.
 */
export async function runFleet(options: RunFleetOptions): Promise<RunSummary> {
  const loaded = typeof options.fleet === 'string' ? loadFleetFile(options.fleet) : checkFleet(options.fleet);
  if ('error' in loaded) throw new AppError('invalid-input', loaded.error);
  const app = options.store?.app ?? openApp(options.dataDir ?? defaultDataDir(), options.env ?? process.env);
  try {
    const handle = app.runs.launch({
      source: { parsed: loaded.fleet },
      task: options.task,
      overrides: {
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
      },
      maxMessages: options.maxMessages ?? null,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const stop = options.onEvent ? handle.onDidEvent(options.onEvent) : null;
    try {
      return await handle.done;
    } finally {
      stop?.();
    }
  } finally {
    if (!options.store) await app.close();
  }
}
