import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '@shared/logger';
import { version } from '../../version';
import type { OtlpTarget } from './otlp-target';

export interface ExportStats {
  /** Spans the collector took (a 2xx answer; a partial success counts as taken). */
  sent: number;
  /** Spans waiting or in flight. */
  pending: number;
  /** Spans not queued because the queue was full (the newest are the ones dropped). */
  dropped: number;
  /** Spans given up on: refused, still failing when the export's time ran out, or left at close. */
  failed: number;
  /** The last failure, for a person (never a header value). */
  lastError: string | null;
}

export interface ExportLimits {
  /** Spans queued at most; past it new spans are dropped and counted (default 2048). */
  maxQueueSpans: number;
  /** Spans per request (default 512). */
  maxBatchSpans: number;
  /** Milliseconds a span may wait for others to share its request (default 200). */
  batchDelayMs: number;
}

export const DEFAULT_LIMITS: ExportLimits = { maxQueueSpans: 2048, maxBatchSpans: 512, batchDelayMs: 200 };

/** `ExportResultCode.SUCCESS` of @opentelemetry/core. */
const SUCCESS = 0;
const FAILED = 1;
const MAX_REASON = 300;
type ResultCallback = Parameters<SpanExporter['export']>[1];
type ExporterConfig = NonNullable<ConstructorParameters<typeof ProtobufTraceExporter>[0]>;

/**
 * Sends finished spans to one OTLP/HTTP collector with the OpenTelemetry SDK: its
 * BatchSpanProcessor queues and batches them, its OTLP exporter (protobuf or JSON, gzip when
 * asked) posts them and retries 429, 502, 503, 504 and network errors with backoff, honouring
 * Retry-After, within the target's timeout. `enqueue` never blocks and never throws for the
 * collector's sake. What happened to each span is counted from the exporter's results.
 */
export class CollectorExport {
  private readonly processor: BatchSpanProcessor;
  private readonly exporter: SpanExporter;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly limits: ExportLimits;
  private readonly counts = { handed: 0, taken: 0, sent: 0, failed: 0, dropped: 0 };
  private lastError: string | null = null;
  private closed = false;

  constructor(
    readonly target: OtlpTarget,
    private readonly logger: Logger,
    limits: Partial<ExportLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    const secure = new URL(target.url).protocol === 'https:';
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    const config = {
      url: target.url,
      headers: target.headers,
      timeoutMillis: target.timeoutMs,
      userAgent: `fleetscope/${version}`,
      httpAgentOptions: () => this.agent,
      compression: (target.gzip ? 'gzip' : 'none') as ExporterConfig['compression'],
    };
    const sdkExporter =
      target.protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
    this.exporter = this.counting(sdkExporter);
    this.processor = new BatchSpanProcessor(this.exporter, {
      maxQueueSize: this.limits.maxQueueSpans,
      maxExportBatchSize: Math.min(this.limits.maxBatchSpans, this.limits.maxQueueSpans),
      scheduledDelayMillis: this.limits.batchDelayMs,
      // A little over the exporter's own deadline, so the processor never gives up first.
      exportTimeoutMillis: target.timeoutMs + 1_000,
    });
  }

  /** Queues a span (already ended); never blocks. */
  enqueue(span: ReadableSpan): void {
    if (this.closed) return;
    // The processor drops a span silently when its queue is full; the same test here counts it.
    // Spans leave that queue when the processor hands them to the exporter (counted as taken).
    const queued = this.counts.handed - this.counts.dropped - this.counts.taken;
    this.counts.handed++;
    if (queued >= this.limits.maxQueueSpans) {
      this.counts.dropped++;
      return;
    }
    this.processor.onEnd(span);
  }

  stats(): ExportStats {
    const { handed, sent, failed, dropped } = this.counts;
    return { sent, failed, dropped, pending: handed - dropped - sent - failed, lastError: this.lastError };
  }

  /**
   * Sends what is queued now; resolves when everything is delivered or given up, or after
   * `timeoutMs`, whichever comes first. Never rejects.
   */
  async flush(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    const settled = (async () => {
      await this.processor.forceFlush().catch(() => undefined);
      // The processor's flush does not wait for a batch its timer already sent.
      await this.exporter.forceFlush?.().catch(() => undefined);
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      settled,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, timeoutMs));
        timer.unref?.();
      }),
    ]);
    clearTimeout(timer);
  }

  /** Stops: requests in flight are cut off and what was not delivered is counted as failed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const { handed, dropped, sent, failed } = this.counts;
    this.counts.failed += handed - dropped - sent - failed;
    void this.processor.shutdown().catch(() => undefined);
    this.agent.destroy();
  }

  /** The exporter with every result counted (until close, which settles the counts itself). */
  private counting(inner: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: ResultCallback) => {
        // After close nothing more goes out (the processor's shutdown flushes what is queued).
        if (this.closed) return done({ code: FAILED });
        this.counts.taken += spans.length;
        inner.export(spans, (result) => {
          if (!this.closed) {
            if (result.code === SUCCESS) this.counts.sent += spans.length;
            else this.fail(spans.length, result.error);
          }
          done(result);
        });
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }

  private fail(count: number, error: Error | undefined): void {
    this.counts.failed += count;
    this.lastError = `${count} spans not delivered: ${describe(error)}`;
    this.logger.warn('OTLP live export', { target: displayUrl(this.target.url), message: this.lastError });
  }
}

/** An exporter error for a person: `HTTP 500: storage is down`, or the network error's message. */
function describe(error: Error | undefined): string {
  if (!error) return 'the export failed';
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code === 'number') {
    const said = typeof data === 'string' ? statusMessage(data) : '';
    return `HTTP ${code}${said ? `: ${said}` : ''}`;
  }
  return error.message.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON) || 'the export failed';
}

/** The message of a google.rpc.Status body in JSON, or the body when it is short plain text. */
function statusMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      const message = (parsed as { message: unknown }).message;
      if (typeof message === 'string') return message.slice(0, MAX_REASON);
    }
  } catch {
    // Not JSON: plain text is kept when it is printable.
  }
  return /^[\x20-\x7e\s]*$/.test(body) ? body.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON) : '';
}

/** The URL without query or credentials, for logs and messages. */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
