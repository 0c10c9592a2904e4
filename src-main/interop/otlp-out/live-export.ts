import type { RunEvent } from '@shared/domain';
import type { Logger } from '@shared/logger';
import type { SessionReader } from '../../history/ports';
import { OtlpSpanMapper, type OtlpSessionInfo } from './otlp-mapper';
import type { OtlpSpan } from './otlp-span';
import { Redactor } from '../export/redact';
import { otlpTarget, OtlpTargetError, type OtlpTarget } from './otlp-target';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { otlpResourceAttributes } from '../export/otlp';
import { CollectorExport, displayUrl, type ExportLimits, type ExportStats } from './collector-export';
import { toReadableSpan } from './readable-span';

export interface LiveExportOptions {
  /** Where a session's summary, fleet and earlier events are read when its first event is not its start. */
  store: Pick<SessionReader, 'getSession'> & {
    /** Events after `afterSeq` up to `toSeq` (inclusive), in seq order. */
    iterateEvents(sessionId: string, afterSeq?: number, toSeq?: number): Iterable<RunEvent>;
  };
  /** The endpoint in Settings (null: no live export unless `useEndpoint` names one). */
  settingsEndpoint: () => string | null;
  /** Where OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT are read, and key variables for masking. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  limits?: Partial<ExportLimits>;
}

/** How one collector is doing, for a person. */
export interface LiveExportReport extends ExportStats {
  /** The traces URL without query (never a header). */
  url: string;
  /** Milliseconds one export may take, its retries included. */
  timeoutMs: number;
}

/** The mapping state of one session being exported. */
interface LiveSession {
  mapper: OtlpSpanMapper;
  redactor: Redactor;
  collector: CollectorExport;
  /** The session's resource (`service.name`, `fleetscope.session.id`), shared by its spans. */
  resource: Resource;
  /** null while the session's first run goes on; a continuation's key and start otherwise. */
  segment: { key: string; startT: number } | null;
}

/** A fork's own events before its first run are few (start, edit, stop); more means it ran. */
const MAX_FORK_PREAMBLE = 1_000;

/** Sessions seen without a target are remembered (so a later setting does not start mid-run), up to this many. */
const MAX_SKIPPED = 10_000;

/**
 * Streams the spans of the runs this app drives to an OTLP collector while they run, with the
 * OTLP export's mapping (`OtlpSpanMapper`): each agent turn and tool call is sent as soon as it
 * completes, the session's root span when a run ends (a continuation gets a span of its own under
 * it). The target is the one `useEndpoint` gave (a command's `--otlp-endpoint`), else the
 * endpoint in Settings at the time a session starts. `observe` runs on the runtime's event path:
 * it only maps and queues, catches everything, and never waits for the network.
 */
export class OtlpLiveExport {
  private override: OtlpTarget | null | undefined = undefined;
  private readonly sessions = new Map<string, LiveSession>();
  private readonly skipped = new Set<string>();
  private readonly collectors = new Map<string, CollectorExport>();
  private settingsProblem: string | null = null;
  private closed = false;

  constructor(private readonly options: LiveExportOptions) {}

  /**
   * Sends the runs started from now on to `endpoint` instead of the one in Settings (null turns
   * live export off for them). Throws OtlpTargetError for an unusable address; returns the target
   * and any problems with the header variables (to show the person).
   */
  useEndpoint(endpoint: string | null): { target: OtlpTarget | null; problems: string[] } {
    if (endpoint === null) {
      this.override = null;
      return { target: null, problems: [] };
    }
    const { target, problems } = otlpTarget(endpoint, this.options.env);
    this.override = target;
    return { target, problems };
  }

  /** Takes one run event; never throws and never blocks on the collector. */
  observe(event: RunEvent): void {
    if (this.closed) return;
    try {
      this.take(event);
    } catch (error) {
      this.options.logger.warn('OTLP live export could not map an event; the run goes on', {
        sessionId: event.sessionId,
        kind: event.kind,
        err: error,
      });
    }
  }

  /** One line per collector used so far. */
  report(): LiveExportReport[] {
    return [...this.collectors.values()].map((collector) => ({
      url: displayUrl(collector.target.url),
      timeoutMs: collector.target.timeoutMs,
      ...collector.stats(),
    }));
  }

  /** Sends what is queued now; resolves when all is delivered or given up, or after `timeoutMs`. */
  async flush(timeoutMs: number): Promise<void> {
    await Promise.all([...this.collectors.values()].map((collector) => collector.flush(timeoutMs)));
  }

  /** Flushes for at most `timeoutMs` (and one export timeout), then stops every request. */
  async close(timeoutMs = 0): Promise<void> {
    if (this.closed) return;
    if (timeoutMs > 0) {
      await Promise.all(
        [...this.collectors.values()].map((collector) =>
          collector.flush(Math.min(timeoutMs, collector.target.timeoutMs)),
        ),
      );
    }
    this.closed = true;
    for (const collector of this.collectors.values()) collector.close();
    this.sessions.clear();
    this.skipped.clear();
  }

  private take(event: RunEvent): void {
    const id = event.sessionId;
    let live = this.sessions.get(id);
    if (!live) {
      if (this.skipped.has(id)) {
        if (event.kind === 'session.stopped') this.skipped.delete(id);
        return;
      }
      const begun = this.begin(event);
      if (!begun) {
        if (event.kind !== 'session.stopped') this.remember(id);
        return;
      }
      live = begun;
      this.sessions.set(id, live);
    }
    const clean = live.redactor.event(event);
    const span = live.mapper.push(clean);
    if (span) send(live, span);
    if (event.kind === 'session.stopped') {
      for (const tool of live.mapper.unfinishedTools()) send(live, tool);
      const last = live.segment
        ? live.mapper.segmentSpan(live.segment.key, live.segment.startT)
        : live.mapper.rootSpan();
      send(live, last);
      // A continuation in this process starts a new segment with fresh state.
      this.sessions.delete(id);
    }
  }

  private remember(id: string): void {
    if (this.skipped.size >= MAX_SKIPPED) {
      const oldest = this.skipped.values().next().value;
      if (oldest !== undefined) this.skipped.delete(oldest);
    }
    this.skipped.add(id);
  }

  /** Starts exporting a session at its first event seen here, or returns null when no target applies. */
  private begin(event: RunEvent): LiveSession | null {
    const target = this.currentTarget();
    if (!target) return null;
    const stored = this.options.store.getSession(event.sessionId);
    const started = event.kind === 'session.started' ? event.payload : null;
    const fleet = started?.fleet ?? stored?.fleet ?? null;
    const info: OtlpSessionInfo = {
      id: event.sessionId,
      createdAt: stored?.summary.createdAt ?? Date.now() - event.t,
      fleetName: started?.fleetName ?? stored?.summary.fleetName ?? 'fleet',
      title: started?.title ?? stored?.summary.title ?? '',
      status: 'running',
      stopReason: null,
      source: stored?.summary.source ?? 'run',
      parentSessionId: started?.parentSessionId ?? stored?.summary.parentSessionId ?? null,
      forkSeq: started?.forkSeq ?? stored?.summary.forkSeq ?? null,
    };
    const redactor = new Redactor([fleet], this.options.env);
    const live: LiveSession = {
      mapper: new OtlpSpanMapper(info, redactor.fleet(fleet)),
      redactor,
      collector: this.collectorFor(target),
      resource: resourceFromAttributes(otlpResourceAttributes(event.sessionId)),
      // A session whose first event here is not its start continues an earlier run (whose root
      // span went out then), unless it is a fork's first run: see forkOwnEvents.
      segment: started ? null : { key: `continuation:${event.seq}`, startT: event.t },
    };
    const forkStart = started || !stored ? null : this.forkOwnEvents(stored.summary, event);
    if (forkStart) {
      live.segment = null;
      for (const earlier of forkStart) {
        const span = live.mapper.push(live.redactor.event(earlier));
        if (span) send(live, span);
      }
    }
    return live;
  }

  /**
   * A fork is recorded when it is made (its start, the edited message, a stop) and run later,
   * from a `session.continued`. When `event` begins the fork's first run, returns the fork's own
   * events before it (not the parent's prefix), so its trace gets its start, the edit and a root
   * span of its own; null for any other session or a fork's later runs.
   */
  private forkOwnEvents(
    summary: { parentSessionId: string | null; forkSeq: number | null },
    event: RunEvent,
  ): RunEvent[] | null {
    if (summary.parentSessionId === null || summary.forkSeq === null) return null;
    const own: RunEvent[] = [];
    for (const earlier of this.options.store.iterateEvents(event.sessionId, summary.forkSeq, event.seq - 1)) {
      if (earlier.kind === 'session.continued') return null;
      own.push(earlier);
      if (own.length > MAX_FORK_PREAMBLE) return null;
    }
    return own;
  }

  private currentTarget(): OtlpTarget | null {
    if (this.override !== undefined) return this.override;
    const endpoint = this.options.settingsEndpoint();
    if (endpoint === null) return null;
    try {
      return otlpTarget(endpoint, this.options.env).target;
    } catch (error) {
      const message = error instanceof OtlpTargetError ? error.message : String(error);
      if (message !== this.settingsProblem) {
        this.settingsProblem = message;
        this.options.logger.warn('The OTLP export endpoint in Settings cannot be used', { message });
      }
      return null;
    }
  }

  private collectorFor(target: OtlpTarget): CollectorExport {
    const key = JSON.stringify(target);
    let collector = this.collectors.get(key);
    if (!collector) {
      collector = new CollectorExport(target, this.options.logger, this.options.limits);
      this.collectors.set(key, collector);
    }
    return collector;
  }
}

function send(live: LiveSession, span: OtlpSpan): void {
  live.collector.enqueue(toReadableSpan(span, live.resource));
}
