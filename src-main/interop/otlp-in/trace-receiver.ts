import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  DEFAULT_END_QUIET_SECONDS,
  DEFAULT_TRACE_PORT,
  MAX_END_QUIET_SECONDS,
  MIN_END_QUIET_SECONDS,
  type TraceReceiverPatch,
  type TraceReceiverStatus,
} from '@shared/contract';
import type { EventChannel, EventPayload } from '@shared/contract';
import type { Logger } from '@shared/logger';
import { NamedSetting, type HistoryStore, type SqliteDatabase } from '../../history';
import { IngestService } from './ingest-service';
import { otlpEnvLines } from './env-lines';
import { startTraceListener, type TraceListener } from './trace-listener';
import type { SpanBatch } from '../span-mapping/span';

const configSchema = z.object({
  enabled: z.boolean(),
  port: z.number().int().min(1).max(65535),
  endQuietSeconds: z
    .number()
    .int()
    .min(MIN_END_QUIET_SECONDS)
    .max(MAX_END_QUIET_SECONDS)
    .default(DEFAULT_END_QUIET_SECONDS),
});
type ReceiverConfig = z.infer<typeof configSchema>;

/** How often a growing trace session is announced to the session list, at most (ms). */
const ANNOUNCE_MS = 250;

export interface TraceReceiverOptions {
  db: SqliteDatabase;
  store: HistoryStore;
  logger: Logger;
  /** Where a live trace session's events go (`run.events`) and the session list hears of it. */
  /** Where run events and store changes go out to clients (the app's EventHub). */
  hub: { emit<C extends EventChannel>(channel: C, payload: EventPayload<C>): void };
  /** Listen on a port of its own (the desktop app); other surfaces attach a web host or none. */
  ownPort: boolean;
  /** The app's provider keys: masked in whatever a trace carries. */
  secrets?: () => readonly string[];
  /** The token exporters must send; a fresh one per launch when absent. */
  token?: string;
  /** Test seams for the live ingest's timing. */
  holdMs?: number;
  quietMs?: number;
}

/**
 * The OpenTelemetry trace receiver of one app: the live ingest (spans to sessions) and where
 * exporters reach it. `fleetscope serve` receives on the web host's own port with the web
 * host's token (`useWebHost`); the desktop app listens on a port of its own (4318 unless the
 * user chose another), with a token made at launch. On/off and the desktop port are settings.
 */
export class TraceReceiver {
  readonly ingest: IngestService;
  private readonly config: NamedSetting<ReceiverConfig>;
  private listener: TraceListener | null = null;
  private webHost: { port: number; token: string } | null = null;
  private error: string | null = null;
  private token: string;
  private queue: Promise<void> = Promise.resolve();
  private readonly announcing = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: TraceReceiverOptions) {
    this.token = options.token ?? randomBytes(24).toString('base64url');
    this.config = new NamedSetting(options.db, 'traceReceiver', configSchema, {
      enabled: true,
      port: DEFAULT_TRACE_PORT,
      endQuietSeconds: DEFAULT_END_QUIET_SECONDS,
    });
    this.ingest = new IngestService({
      writer: options.store,
      onEvents: (sessionId, events) => {
        options.hub.emit('run.events', { sessionId, events });
        this.announce(sessionId);
      },
      logger: options.logger,
      secrets: options.secrets,
      holdMs: options.holdMs,
      quietMs: options.quietMs,
      endQuietMs: this.config.get().endQuietSeconds * 1000,
    });
  }

  get enabled(): boolean {
    return this.config.get().enabled;
  }

  /** Takes a decoded export in (the HTTP handlers call this). */
  receive(batch: SpanBatch): { rejected: SpanBatch['rejected'] } {
    return this.ingest.receive(batch);
  }

  /** `fleetscope serve`: traces arrive at the web host, with its launch token. */
  useWebHost(port: number, token: string): void {
    this.webHost = { port, token };
  }

  /** Starts the desktop listener when the receiver is on. */
  start(): Promise<TraceReceiverStatus> {
    return this.serialized(() => this.apply());
  }

  async configure(patch: TraceReceiverPatch): Promise<TraceReceiverStatus> {
    return this.serialized(async () => {
      this.config.set({ ...this.config.get(), ...patch });
      this.ingest.setEndQuietMs(this.config.get().endQuietSeconds * 1000);
      return this.apply();
    });
  }

  status(): TraceReceiverStatus {
    const config = this.config.get();
    const mode = this.webHost ? 'web-host' : this.options.ownPort ? 'own-port' : 'none';
    const port = this.webHost ? this.webHost.port : (this.listener?.port ?? null);
    const listening = config.enabled && port !== null;
    const token = this.webHost?.token ?? this.token;
    return {
      mode,
      enabled: config.enabled,
      listening,
      configuredPort: config.port,
      endQuietSeconds: config.endQuietSeconds,
      port: listening ? port : null,
      endpoint: listening ? `http://127.0.0.1:${port}` : null,
      envLines: listening && port !== null ? otlpEnvLines(port, token) : [],
      error: this.error,
      stats: this.ingest.stats(),
    };
  }

  /** The token the web host's route checks (the web host's own). */
  get webHostToken(): string | null {
    return this.webHost?.token ?? null;
  }

  async close(): Promise<void> {
    await this.serialized(async () => {
      await this.stopListening();
    });
    this.ingest.close();
    for (const timer of this.announcing.values()) clearTimeout(timer);
    this.announcing.clear();
  }

  /**
   * The session list and an open session's header hear of a growing session at most every
   * ANNOUNCE_MS (the store announces imports only when they finish).
   */
  private announce(sessionId: string): void {
    if (this.announcing.has(sessionId)) return;
    const timer = setTimeout(() => {
      this.announcing.delete(sessionId);
      this.options.hub.emit('store.changed', { topic: 'sessions' });
      this.options.hub.emit('store.changed', { topic: 'session', id: sessionId });
    }, ANNOUNCE_MS);
    timer.unref?.();
    this.announcing.set(sessionId, timer);
  }

  private async apply(): Promise<TraceReceiverStatus> {
    const config = this.config.get();
    this.error = null;
    if (!this.options.ownPort) return this.status();
    if (!config.enabled) {
      await this.stopListening();
      return this.status();
    }
    if (this.listener?.port === config.port) return this.status();
    await this.stopListening();
    try {
      this.listener = await startTraceListener(config.port, {
        token: this.token,
        receive: (batch) => this.receive(batch),
        onRefused: (status, reason) =>
          this.options.logger.debug('A trace export was refused', { status, reason }),
      });
      this.options.logger.info('Receiving OpenTelemetry traces', { port: this.listener.port });
    } catch (error) {
      const code = (error as { code?: string }).code;
      this.error =
        code === 'EADDRINUSE'
          ? `Port ${config.port} is in use (another collector or app?). Choose another port.`
          : `The receiver could not listen on port ${config.port}: ${error instanceof Error ? error.message : String(error)}`;
      this.options.logger.warn('The trace receiver could not listen', { port: config.port, err: error });
    }
    return this.status();
  }

  private async stopListening(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    await listener?.close();
  }

  /** One start, change or stop at a time (a port change closes the old listener first). */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }
}
