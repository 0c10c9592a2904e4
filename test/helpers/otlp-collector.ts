import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from '../../src-main/interop/otlp-in/otlp-codec';

/** An OTLP/JSON span as the collector received it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }>;
  status: { code: number; message?: string };
}

export interface CollectorRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed body (null when it was not JSON). */
  body: { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ spans: ReceivedSpan[] }> }> } | null;
  /** Set when the server answered (never for a hung request). */
  answered: boolean;
}

/** How the collector answers one request. */
export type CollectorReply =
  | { type: 'ok'; body?: unknown }
  | { type: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Reads the request, then never answers until the collector closes. */
  | { type: 'hang' };

export interface OtlpCollector {
  /** Base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (no /v1/traces). */
  readonly endpoint: string;
  readonly requests: CollectorRequest[];
  /** Replies for the next requests, in order; then `fallback`. */
  enqueue(...replies: CollectorReply[]): void;
  /** The answer once the queue is empty (default ok). */
  setFallback(reply: CollectorReply): void;
  /** Every span received in answered-or-not requests, in arrival order. */
  spans(): ReceivedSpan[];
  /** Resolves when a span matching `test` has arrived. */
  waitForSpan(test: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  /** Resolves when `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/** The string value of a span attribute, whatever its OTLP value type. */
export function attr(span: ReceivedSpan | undefined, key: string): string | undefined {
  const value = span?.attributes.find((entry) => entry.key === key)?.value;
  if (!value) return undefined;
  const first = Object.values(value)[0];
  return first === undefined ? undefined : String(first);
}

/**
 * A real OTLP/HTTP collector on 127.0.0.1 for tests: takes `POST /v1/traces` in OTLP/JSON,
 * records every request, and answers as scripted (success, any status with headers, or never).
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const requests: CollectorRequest[] = [];
  const queue: CollectorReply[] = [];
  let fallback: CollectorReply = { type: 'ok' };
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const wake of [...waiters]) wake();
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = decodeBody(req, Buffer.concat(parts));
    const record: CollectorRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      answered: false,
    };
    requests.push(record);
    notify();
    const reply = queue.shift() ?? fallback;
    switch (reply.type) {
      case 'hang':
        return;
      case 'ok':
        record.answered = true;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body ?? {}));
        return;
      case 'status':
        record.answered = true;
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '');
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const spans = () =>
    requests.flatMap(
      (request) =>
        request.body?.resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans),
        ) ?? [],
    );
  const until = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const test = () => {
        const found = check();
        if (found === undefined) return;
        waiters.delete(test);
        resolve(found);
      };
      waiters.add(test);
      test();
    });

  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    setFallback: (reply) => {
      fallback = reply;
    },
    spans,
    waitForSpan: (test) => until(() => spans().find(test)),
    waitForRequests: (count) =>
      until(() => (requests.length >= count ? true : undefined)).then(() => undefined),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The request body as OTLP/JSON: gzip undone, protobuf decoded (ids as hex, as OTLP/JSON writes
 * them); null when it is neither.
 */
function decodeBody(req: IncomingMessage, raw: Buffer): CollectorRequest['body'] {
  try {
    const bytes = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    if (req.headers['content-type'] === 'application/x-protobuf') {
      const decoded = decodeTraceRequest(bytes) as NonNullable<CollectorRequest['body']>;
      for (const resource of decoded.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            span.traceId = hex(span.traceId);
            span.spanId = hex(span.spanId);
            if (span.parentSpanId) span.parentSpanId = hex(span.parentSpanId);
            span.attributes ??= [];
            span.events ??= [];
          }
        }
      }
      return decoded;
    }
    return JSON.parse(bytes.toString('utf8')) as CollectorRequest['body'];
  } catch {
    return null;
  }
}

function hex(base64: string): string {
  return Buffer.from(base64, 'base64').toString('hex');
}
