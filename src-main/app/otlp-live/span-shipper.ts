import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Logger } from '@shared/logger';
import { otlpResource } from '../../history/export/otlp';
import { version } from '../version';
import type { OtlpTarget } from './otlp-target';
import { postOutcome, type PostOutcome } from './post-outcome';

/** One finished span waiting to be sent, already in its OTLP/JSON text. */
export interface QueuedSpan {
  /** The session it belongs to (spans are grouped per session resource in a request). */
  sessionId: string;
  json: string;
}

export interface ShipperStats {
  /** Spans the collector accepted (partial-success rejections subtracted). */
  sent: number;
  /** Spans waiting, including the batch in flight. */
  pending: number;
  /** Spans thrown away, oldest first, because the queue was full. */
  dropped: number;
  /** Spans given up on: refused by the collector, or still failing after every retry. */
  failed: number;
  /** The last failure, for a person (never a header value). */
  lastError: string | null;
}

export interface ShipperLimits {
  /** Spans held at most; past it the oldest are dropped (default 2048, like BatchSpanProcessor). */
  maxQueueSpans: number;
  /** Bytes of span text held at most (default 32 MiB). */
  maxQueueBytes: number;
  /** Spans per request (default 512). */
  maxBatchSpans: number;
  /** Bytes of span text per request (default 4 MiB). */
  maxBatchBytes: number;
  /** Milliseconds a span may wait for others to share its request (default 200). */
  batchDelayMs: number;
  /** Tries per batch, the first included (default 6). */
  maxAttempts: number;
  /** First retry delay in ms, doubled each time with ±20 % jitter, capped (defaults 500, 30 000). */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_LIMITS: ShipperLimits = {
  maxQueueSpans: 2048,
  maxQueueBytes: 32 * 1024 * 1024,
  maxBatchSpans: 512,
  maxBatchBytes: 4 * 1024 * 1024,
  batchDelayMs: 200,
  maxAttempts: 6,
  initialBackoffMs: 500,
  maxBackoffMs: 30_000,
};

/** A Retry-After longer than this is not waited for in full. */
const MAX_RETRY_AFTER_MS = 120_000;
const SCOPE = '{"name":"fleetscope.live-export","version":"1"}';

/**
 * Sends finished spans to one OTLP/HTTP collector as OTLP/JSON, in the background, so the run
 * that produces them never waits: `enqueue` only appends to a bounded queue (the oldest spans are
 * dropped, and counted, when it is full), and one request at a time goes out. Failures follow
 * the OTLP specification: 429, 502, 503 and 504 and network errors are retried with exponential
 * backoff and jitter, honouring Retry-After; other answers are not retried; a 200 with a partial
 * success counts the rejected spans and logs the collector's message.
 */
export class SpanShipper {
  private readonly queue: QueuedSpan[] = [];
  private queueBytes = 0;
  private inFlight = 0;
  private readonly counts = { sent: 0, dropped: 0, failed: 0 };
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sending = false;
  private closed = false;
  /** Set while flushing: send at once instead of waiting for a batch to fill. */
  private urgent = false;
  private readonly abort = new AbortController();
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly idleWaiters = new Set<() => void>();
  private readonly limits: ShipperLimits;

  constructor(
    readonly target: OtlpTarget,
    private readonly logger: Logger,
    limits: Partial<ShipperLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    const secure = new URL(target.url).protocol === 'https:';
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** Queues a span; never blocks and never throws for the collector's sake. */
  enqueue(span: QueuedSpan): void {
    if (this.closed) return;
    const bytes = Buffer.byteLength(span.json);
    if (bytes > this.limits.maxBatchBytes) {
      this.counts.dropped++;
      this.note(`A span of ${bytes} bytes is larger than one request may be; it was dropped.`);
      return;
    }
    this.queue.push(span);
    this.queueBytes += bytes;
    while (this.queue.length > this.limits.maxQueueSpans || this.queueBytes > this.limits.maxQueueBytes) {
      const oldest = this.queue.shift();
      if (!oldest) break;
      this.queueBytes -= Buffer.byteLength(oldest.json);
      this.counts.dropped++;
    }
    this.schedule();
  }

  stats(): ShipperStats {
    return { ...this.counts, pending: this.queue.length + this.inFlight, lastError: this.lastError };
  }

  /**
   * Sends what is queued without waiting for batches to fill; resolves when everything is
   * delivered or given up, or after `timeoutMs`, whichever comes first. Never rejects.
   */
  async flush(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.urgent = true;
    this.schedule();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.whenIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, timeoutMs));
        timer.unref?.();
      }),
    ]);
    clearTimeout(timer);
    this.urgent = false;
  }

  /** Stops at once: the request in flight is aborted; what is still queued is counted as failed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    // The batch in flight is given up too; deliver() sees `closed` and does not count it again.
    this.counts.failed += this.queue.length + this.inFlight;
    this.inFlight = 0;
    this.queue.length = 0;
    this.queueBytes = 0;
    this.agent.destroy();
    this.wakeIdle();
  }

  private whenIdle(): Promise<void> {
    if (this.queue.length === 0 && !this.sending) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  private wakeIdle(): void {
    for (const resolve of this.idleWaiters) resolve();
    this.idleWaiters.clear();
  }

  private schedule(): void {
    if (this.sending || this.closed || this.queue.length === 0) return;
    const full = this.queue.length >= this.limits.maxBatchSpans;
    if (this.urgent || full) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      void this.pump();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, this.limits.batchDelayMs);
    this.timer.unref?.();
  }

  private async pump(): Promise<void> {
    if (this.sending || this.closed) return;
    this.sending = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const batch = this.takeBatch();
        this.inFlight = batch.length;
        await this.deliver(batch);
        this.inFlight = 0;
      }
    } catch (error) {
      // deliver() handles every failure it knows; anything else must not escape into the app.
      this.note(`Sending spans failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.inFlight = 0;
      this.sending = false;
      if (this.queue.length === 0 || this.closed) this.wakeIdle();
      else this.schedule();
    }
  }

  private takeBatch(): QueuedSpan[] {
    const batch: QueuedSpan[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && batch.length < this.limits.maxBatchSpans) {
      const next = this.queue[0] as QueuedSpan;
      const size = Buffer.byteLength(next.json);
      if (batch.length > 0 && bytes + size > this.limits.maxBatchBytes) break;
      this.queue.shift();
      this.queueBytes -= size;
      bytes += size;
      batch.push(next);
    }
    return batch;
  }

  private async deliver(batch: QueuedSpan[]): Promise<void> {
    const body = Buffer.from(requestBody(batch));
    let backoff = this.limits.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(body);
      if (this.closed) return;
      switch (outcome.kind) {
        case 'ok': {
          const rejected = Math.min(batch.length, outcome.rejected);
          this.counts.sent += batch.length - rejected;
          this.counts.failed += rejected;
          if (rejected > 0 || outcome.message) {
            this.note(
              `The collector accepted ${batch.length - rejected} of ${batch.length} spans${outcome.message ? `: ${outcome.message}` : '.'}`,
            );
          }
          return;
        }
        case 'refused':
          this.counts.failed += batch.length;
          this.note(`The collector refused ${batch.length} spans: ${outcome.reason}`);
          return;
        case 'retry': {
          if (attempt >= this.limits.maxAttempts) {
            this.counts.failed += batch.length;
            this.note(`Gave up on ${batch.length} spans after ${attempt} tries: ${outcome.reason}`);
            return;
          }
          this.lastError = outcome.reason;
          const jittered = backoff * (0.8 + Math.random() * 0.4);
          backoff = Math.min(backoff * 2, this.limits.maxBackoffMs);
          const wait = outcome.retryAfterMs ?? Math.min(jittered, this.limits.maxBackoffMs);
          await this.sleep(Math.min(wait, MAX_RETRY_AFTER_MS));
          if (this.closed) return;
          break;
        }
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const signal = this.abort.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** One POST; every failure becomes an outcome, nothing throws. */
  private post(body: Buffer): Promise<PostOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: PostOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const url = new URL(this.target.url);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let request: ReturnType<typeof httpRequest>;
      try {
        request = send(url, {
          method: 'POST',
          agent: this.agent,
          signal: this.abort.signal,
          headers: {
            ...this.target.headers,
            'content-type': 'application/json',
            'content-length': String(body.length),
            'user-agent': `fleetscope/${version}`,
          },
        });
      } catch (error) {
        finish({ kind: 'refused', reason: error instanceof Error ? error.message : String(error) });
        return;
      }
      const timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${this.target.timeoutMs} ms`));
      }, this.target.timeoutMs);
      timer.unref?.();
      request.on('error', (error) => finish({ kind: 'retry', reason: error.message, retryAfterMs: null }));
      request.on('response', (response: IncomingMessage) => {
        void postOutcome(response).then(finish, (error: unknown) =>
          finish({
            kind: 'retry',
            reason: error instanceof Error ? error.message : String(error),
            retryAfterMs: null,
          }),
        );
      });
      request.end(body);
    });
  }

  private note(message: string): void {
    this.lastError = message;
    this.logger.warn('OTLP live export', { target: displayUrl(this.target.url), message });
  }
}

/** An ExportTraceServiceRequest in OTLP/JSON: one resource per session, its spans in order. */
function requestBody(batch: QueuedSpan[]): string {
  const bySession = new Map<string, string[]>();
  for (const span of batch) {
    const list = bySession.get(span.sessionId);
    if (list) list.push(span.json);
    else bySession.set(span.sessionId, [span.json]);
  }
  const resources = [...bySession].map(([sessionId, spans]) => {
    const resource = JSON.stringify({ attributes: otlpResource(sessionId) });
    return `{"resource":${resource},"scopeSpans":[{"scope":${SCOPE},"spans":[${spans.join(',')}]}]}`;
  });
  return `{"resourceSpans":[${resources.join(',')}]}`;
}

/** The URL without query or credentials, for logs and messages. */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
