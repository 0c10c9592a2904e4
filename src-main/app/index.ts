import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppInfo, ChannelName, Input, Output } from '@shared/contract';
import { openHistory, type HistoryStore, type SqliteDatabase } from '../history';
import type { SalvageReport } from '../history/salvage';
import { SettingsStore } from '../history/settings-store';
import { importFile, type ImportResult } from '../interop/import';
import { exportSession, exportToStream, type ExportFormat } from '../interop/export';
import { trackTask } from './services/task-progress';
import { APP_NAME } from './composition/data-dir';
import { Dispatcher, type CallContext, type Handlers } from './handlers/dispatcher';
import { AppError, toAppError } from './handlers/errors';
import { ForeignRunRelay } from './services/foreign-runs';
import { createLogger } from './composition/logger';
import type { Logger } from '@shared/logger';
import { EventHub } from './delivery/event-hub';
import { FleetCatalog } from './services/fleet-catalog';
import { registerAppHandlers } from './handlers/app';
import { registerFleetHandlers } from './handlers/fleets';
import { registerProviderHandlers } from './handlers/providers';
import { ProviderService, type KeyVault } from './services/providers';
import { RetentionService } from './services/retention';
import { createBuiltinTools } from '../orchestrator/tools';
import { registerRunHandlers } from './handlers/runs';
import { registerBranchHandlers } from './handlers/branches';
import { BranchService } from './services/branch-service';
import { registerSessionHandlers } from './handlers/sessions';
import { registerContextHandlers } from './handlers/context';
import { RunService } from './services/run-service';
import { TraceReceiver } from '../interop/otlp-in';
import { registerTraceHandlers } from './handlers/traces';
import { OtlpLiveExport } from '../interop/otlp-out';
import { seedSamples } from './composition/seed';
import { announceStoreChanges } from './delivery/store-events';
import { readOnlyMessage, refuseWrites } from './handlers/read-only';
import { version } from '../version';

export { Dispatcher, type CallContext } from './handlers/dispatcher';
export { EventHub } from './delivery/event-hub';
export { AppError, toAppError } from './handlers/errors';
export { defaultDataDir, APP_NAME } from './composition/data-dir';
export type { KeyVault } from './services/providers';
export { createLogger, LOG_FILE, type AppLogger } from './composition/logger';
export type { Logger } from '@shared/logger';
export type { RunService, LaunchRequest, PreparedLaunch, ResumeRequest } from './services/run-service';
export type { BranchService } from './services/branch-service';
export type { RunHandle, RunSummary, HumanRequest, ProviderOverrides } from '../orchestrator';
export { createBuiltinTools } from '../orchestrator';
export { STORE_FILE, type StoredMessage, type SessionListItem } from '../history';
export { StoreFault, storeFaultOf } from '../history/store-faults';
export { readOnlyMessage } from './handlers/read-only';
export { IMPORT_FORMATS, TransferError, type ImportFormat } from '../interop/import';
export { checkFleet, loadFleetFile, type LoadedFleet } from './services/fleet-file';
export { EXPORT_FORMATS, exportSession, exportToStream, type ExportFormat } from '../interop/export';
export { TraceReceiver } from '../interop/otlp-in';
export { handleTraceExport, otlpEnvLines, TOKEN_HEADER, TRACES_PATH } from '../interop/otlp-in';
export {
  OtlpLiveExport,
  OtlpTargetError,
  tracesUrl,
  type LiveExportReport,
  type OtlpTarget,
} from '../interop/otlp-out';

/**
 * The project's resources/ folder, found by walking up from this module: it sits two levels up
 * from the sources (src-main/app/) and two or three from the build (out/main/, out/main/chunks/).
 */
export function defaultResourcesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 5; level++) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'fleets'))) return candidate;
    dir = dirname(dir);
  }
  return fileURLToPath(new URL('../../resources', import.meta.url));
}

export interface AppOptions {
  dataDir: string;
  surface: AppInfo['surface'];
  /** better-sqlite3 binding for the current runtime (the desktop app ships its own). */
  nativeBinding?: string;
  /** Where example fleets (fleets/) and sample sessions (samples/) are read from. */
  resourcesDir?: string;
  /** Import the sample sessions into an empty store (default true; tests turn it off). */
  seedSamples?: boolean;
  /** Milliseconds between ping events; 0 disables them. */
  pingIntervalMs?: number;
  /** Where provider API keys are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where API keys are stored (desktop: Electron safeStorage); none means environment variables. */
  keyVault?: KeyVault;
  /** Where the services log (default: DATA_DIR/fleetscope.log, level from FLEETSCOPE_LOG). */
  logger?: Logger & { flush?(): void };
  /**
   * Watch the shared store while open (default true): relay runs that other processes drive into
   * this app's views, and mark interrupted the live sessions whose driving process has died.
   * One-shot surfaces (a CLI command, a script) turn it off.
   */
  watchStore?: boolean;
  /**
   * Apply Settings' retention at start and hourly (default: desktop and browser hosts, not the
   * CLI; it deletes only once its setting was confirmed, see RetentionService).
   */
  retention?: boolean;
  /** Milliseconds between retention runs in such a host (default hourly). */
  retentionIntervalMs?: number;
  /**
   * Receive OpenTelemetry traces on a port of the app's own (the desktop app; 4318 unless the
   * user chose another). `fleetscope serve` receives on its web host's port instead.
   */
  listenForTraces?: boolean;
  /** How long controls of a run another process drives wait for it, in ms (default 10 s). */
  runRequestTimeoutMs?: number;
}

export interface FleetscopeApp {
  readonly dispatcher: Dispatcher;
  readonly hub: EventHub;
  readonly info: AppInfo;
  readonly db: SqliteDatabase;
  readonly store: HistoryStore;
  /** Runs of every surface: start, control, answer, continue. */
  readonly runs: RunService;
  /** Forks, families and comparisons (the CLI writes comparisons to stdout through it). */
  readonly branches: BranchService;
  /** The OpenTelemetry trace receiver: spans from instrumented programs become live sessions. */
  readonly traces: TraceReceiver;
  /** Streams the spans of this app's runs to an OTLP collector (Settings, or `useEndpoint`). */
  readonly liveExport: OtlpLiveExport;
  readonly logger: Logger;
  /** Set when a corrupt store was moved aside at start; tell the user where it went. */
  readonly movedAsideTo: string | null;
  /** The data folder cannot be written: writing commands are refused (see read-only.ts). */
  readonly readOnly: boolean;
  /** Retention: its preview, and `apply()` for the CLI's explicit `fleetscope retention --apply`. */
  readonly retention: RetentionService;
  /** Resolves when start-up work (sample sessions, clean-up) is done. */
  readonly ready: Promise<void>;
  /**
   * Imports a transcript file from a path (desktop menu, CLI), reporting task.progress and to
   * `onProgress` (bytes of the file, see ImportOptions).
   */
  importFile(path: string, onProgress?: (done: number, total: number) => void): Promise<ImportResult>;
  /**
   * Calls a channel of the contract in process, with the same validation as the bindings:
   * resolves to its output, or rejects with an AppError carrying the channel's error code.
   */
  call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>>;
  /**
   * Exports a session (id or unique prefix) to a file path or a stream, masking the values of
   * every key variable the app knows. Resolves to what was written.
   */
  exportTo(
    idOrPrefix: string,
    format: ExportFormat,
    target: string | Writable,
    /** Events written so far and the session's event count. */
    onProgress?: (done: number, total: number) => void,
  ): Promise<{ sessionId: string; events: number; bytes: number }>;
  close(): Promise<void>;
}

/** `read` at most once per `ms` milliseconds (secret values for every log line). */
function cachedFor<T>(ms: number, read: () => T): () => T {
  let value: T | undefined;
  let at = -Infinity;
  return () => {
    if (value === undefined || Date.now() - at > ms) {
      value = read();
      at = Date.now();
    }
    return value;
  };
}

/** What the person is told about a damaged store: where it went and what came back from it. */
export function damagedStoreNotice(movedAsideTo: string, salvaged: SalvageReport | null): string {
  const head = `The store was damaged; it was moved to ${movedAsideTo} and a new one started.`;
  if (salvaged === null || salvaged.unreadable !== null) {
    return `${head} No session could be read from it${salvaged?.unreadable ? ` (${salvaged.unreadable})` : ''}.`;
  }
  const total = salvaged.recovered + salvaged.lost;
  const plural = (n: number) => (n === 1 ? '' : 's');
  return (
    `${head} Recovered ${salvaged.recovered} of ${total} session${plural(total)} from it` +
    (salvaged.lost > 0 ? `; ${salvaged.lost} could not be read.` : '.')
  );
}

/** How long closing the app waits for queued live-export spans to reach the collector, in ms. */
const LIVE_EXPORT_CLOSE_MS = 2_000;

/** How often a long-lived surface looks for live sessions whose driving process died, in ms. */
const ORPHAN_SWEEP_MS = 10_000;

/**
 * The composition root: builds the services and the handlers every surface shares (the desktop
 * window, the web host, every CLI command and the programmatic API), so recovery, ownership,
 * settings, key checks and event relaying behave the same everywhere.
 */
export function createApp(options: AppOptions): FleetscopeApp {
  const env = options.env ?? process.env;
  let secretValues: () => string[] = () => [];
  const logger =
    options.logger ?? createLogger({ dataDir: options.dataDir, env, secrets: () => secretValues() });
  const history = openHistory(options.dataDir, {
    nativeBinding: options.nativeBinding,
    onWriteError: (error) =>
      logger.error('A batch of run events failed to commit; it is retried', { err: error }),
  });
  logger.debug('Opened the store', { surface: options.surface, dataDir: options.dataDir });
  if (history.recovery.sessions.length > 0) {
    logger.info('Marked sessions whose process had ended as interrupted', {
      sessions: history.recovery.sessions,
    });
  }
  const { store, db, readOnly } = history;
  const resourcesDir = options.resourcesDir ?? defaultResourcesDir();
  const hub = new EventHub();
  const notices: string[] = [];
  if (readOnly) notices.push(readOnlyMessage(options.dataDir));
  if (history.movedAsideTo) notices.push(damagedStoreNotice(history.movedAsideTo, history.salvaged));
  const info: AppInfo = {
    name: APP_NAME,
    version,
    dataDir: options.dataDir,
    surface: options.surface,
    platform: process.platform,
    readOnly,
    notices,
  };
  // A full disk stops the runs (RunService); every surface shows why.
  store.onDidFault((fault) => {
    logger.error('The store cannot write; the runs were stopped', { err: fault });
    if (!notices.includes(fault.message)) notices.push(fault.message);
    hub.emit('store.changed', { topic: 'app' });
  });
  const settings = new SettingsStore(db);
  // Imports and received traces are priced as live runs are: Settings' overrides first, read as
  // they are stored when each import starts (another process on this folder may change them).
  store.setPriceOverrides(() => settings.get().priceOverrides);
  const catalog = new FleetCatalog(
    store,
    join(resourcesDir, 'fleets'),
    logger.child({ component: 'fleets' }),
  );
  const providers = new ProviderService({
    dataDir: options.dataDir,
    vault: options.keyVault ?? null,
    env,
    logger: logger.child({ component: 'providers' }),
  });
  secretValues = cachedFor(5_000, () => providers.secretValues());
  /** The one tool registry: every run offers these tools, and fleets are checked against them. */
  const toolRegistry = createBuiltinTools();
  const runs = new RunService({
    store,
    hub,
    settings,
    catalog,
    env: providers.runEnv(),
    checkProvider: (provider) => providers.providerProblem(provider),
    address: (provider) => {
      const resolved = providers.address(provider);
      if ('problem' in resolved) throw new Error(resolved.problem);
      return resolved.url;
    },
    secrets: () => secretValues(),
    providerPreset: (id) => providers.info(id),
    onRequestError: (error) =>
      logger.warn("Reading requests to this process's runs failed; retried", { err: error }),
    tools: toolRegistry,
    ...(options.runRequestTimeoutMs !== undefined ? { requestTimeoutMs: options.runRequestTimeoutMs } : {}),
  });
  const liveExport = new OtlpLiveExport({
    store,
    settingsEndpoint: () => settings.get().otlpExportEndpoint,
    env,
    logger: logger.child({ component: 'otlp-live-export' }),
  });
  const stopExporting = runs.onDidEvent((event) => liveExport.observe(event));
  const tools = toolRegistry
    .specs(toolRegistry.names())
    .map(({ name, description }) => ({ name, description }));
  const stopAnnouncing = announceStoreChanges(store, hub);
  const traces = new TraceReceiver({
    db,
    store,
    hub,
    logger: logger.child({ component: 'trace-receiver' }),
    secrets: () => secretValues(),
    ownPort: options.listenForTraces === true,
  });
  if (options.listenForTraces === true && !readOnly) void traces.start();
  const branches = new BranchService({
    store,
    runs,
    settings,
    dataDir: options.dataDir,
    env: providers.runEnv(),
    toolNames: toolRegistry.names(),
  });
  // Retention runs only in long-lived hosts (desktop, browser), hourly; never from a CLI command,
  // and never on a read-only folder.
  const runsRetention = (options.retention ?? options.surface !== 'cli') && !readOnly;
  const retention = new RetentionService({
    store,
    db,
    settings,
    samplesDir: join(resourcesDir, 'samples'),
    logger: logger.child({ component: 'retention' }),
  });
  const allHandlers: Handlers = {
    ...registerAppHandlers({
      info,
      settings,
      hub,
      retention,
      applyRetention: runsRetention,
    }),
    ...registerSessionHandlers({
      store,
      hub,
      exportDir: readOnly ? join(tmpdir(), 'fleetscope-exports') : join(options.dataDir, 'exports'),
      env: providers.runEnv(),
    }),
    ...registerContextHandlers(store),
    ...registerRunHandlers(runs, branches),
    ...registerTraceHandlers(traces),
    ...registerBranchHandlers(branches, hub),
    ...registerFleetHandlers(catalog),
    ...registerProviderHandlers({
      providers,
      tools,
      onDidChange: () => hub.emit('store.changed', { topic: 'providers' }),
    }),
  };
  const handlers = readOnly ? refuseWrites(allHandlers, options.dataDir) : allHandlers;
  const dispatcher = new Dispatcher(handlers, logger.child({ component: 'dispatcher' }));

  const ready = (async () => {
    if (readOnly) return;
    if (options.seedSamples !== false) {
      await seedSamples(db, store, join(resourcesDir, 'samples'), logger);
      retention.markSamples();
    }
    if (runsRetention) retention.start(options.retentionIntervalMs);
  })();

  // Long-lived surfaces share the store with CLI runs and scripts: show their runs live, and notice
  // when one dies (its sessions would otherwise stay "running" until the next start).
  const watchStore = options.watchStore !== false;
  const sweepOrphans = watchStore && !readOnly;
  const onWatchError = (error: unknown) => logger.error('Watching the shared store failed', { err: error });
  const relay = watchStore ? new ForeignRunRelay(store, hub, onWatchError) : null;
  const sweep = sweepOrphans
    ? setInterval(() => {
        try {
          store.recoverInterrupted();
        } catch (error) {
          onWatchError(error);
        }
      }, ORPHAN_SWEEP_MS)
    : null;
  sweep?.unref?.();
  const context: CallContext = { surface: options.surface };

  let n = 0;
  const pingInterval = options.pingIntervalMs ?? 5000;
  const timer =
    pingInterval > 0 ? setInterval(() => hub.emit('ping', { n: n++, at: Date.now() }), pingInterval) : null;
  timer?.unref?.();

  return {
    dispatcher,
    hub,
    info,
    db,
    store,
    runs,
    branches,
    traces,
    liveExport,
    logger,
    movedAsideTo: history.movedAsideTo,
    readOnly,
    retention,
    ready,
    async call(channel, input) {
      const result = await dispatcher.dispatch(channel, input, context);
      if (!result.ok) throw new AppError(result.error.code, result.error.message);
      return result.value as Output<typeof channel>;
    },
    async importFile(path, onProgress) {
      const task = trackTask(hub, `Importing ${basename(path)}`);
      try {
        return await importFile(path, store, {
          onProgress: (done, total) => {
            task.progress(done, total);
            onProgress?.(done, total);
          },
        });
      } finally {
        task.finish(1, 1);
      }
    },
    async exportTo(idOrPrefix, format, target, onProgress) {
      try {
        const sessionId = store.resolveSessionId(idOrPrefix);
        const options = { env: providers.runEnv(), ...(onProgress ? { onProgress } : {}) };
        const result =
          typeof target === 'string'
            ? await exportSession(store, sessionId, format, target, options)
            : await exportToStream(store, sessionId, format, target, options);
        return { sessionId, events: result.events, bytes: result.bytes };
      } catch (error) {
        throw toAppError(error);
      }
    },
    async close() {
      if (timer) clearInterval(timer);
      if (sweep) clearInterval(sweep);
      retention.dispose();
      relay?.dispose();
      await ready.catch(() => undefined);
      await runs.dispose();
      await traces.close();
      stopExporting();
      // Spans still queued get a short last chance; a collector that hangs cannot hold the exit.
      await liveExport.close(LIVE_EXPORT_CLOSE_MS);
      stopAnnouncing();
      history.close();
      logger.flush?.();
    },
  };
}
