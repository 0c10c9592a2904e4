import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { OtlpShapeError, readOtlpTraces } from '../span-mapping/read-otlp';
import { liveSpanLimits } from '../span-mapping/span-limits';
import type { SpanBatch } from '../span-mapping/span';
import { decodeTraceRequest, encodeStatus, encodeTraceResponse, type PartialSuccess } from './otlp-codec';

const gunzipAsync = promisify(gunzip);

/** Where OTLP/HTTP exporters send traces: the endpoint plus this path. */
export const TRACES_PATH = '/v1/traces';
/** The header carrying the launch token (`OTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=…`). */
export const TOKEN_HEADER = 'x-fleetscope-token';
/** Largest request body, after decompression. */
export const MAX_TRACE_BODY_BYTES = 32 * 1024 * 1024;

/** google.rpc.Code values used in error bodies. */
const RPC = {
  invalidArgument: 3,
  permissionDenied: 7,
  resourceExhausted: 8,
  unavailable: 14,
  unauthenticated: 16,
} as const;

type Encoding = 'protobuf' | 'json';

export interface TraceReceiverOptions {
  token: string;
  /** Hosts the request may name (the listener's 127.0.0.1:port and localhost:port). */
  allowedHosts: () => string[];
  /** Takes decoded spans in; throws when they could not be stored (answered 503, retried). */
  receive: (batch: SpanBatch) => { rejected: SpanBatch['rejected'] };
  now?: () => number;
  maxBodyBytes?: number;
  /** Told about requests refused for a reason worth a log line (never their content). */
  onRefused?: (status: number, reason: string) => void;
}

/**
 * Answers one OTLP/HTTP trace export (`POST /v1/traces`) as the specification says: protobuf
 * (`application/x-protobuf`) or JSON (`application/json`) bodies, optionally gzip-compressed;
 * 200 with an ExportTraceServiceResponse in the request's encoding, carrying `partial_success`
 * when some spans were rejected; 400 with a google.rpc.Status for a body that is not a trace
 * export or whose spans are all unusable; 401/403 for a missing/wrong token; 413 for a body
 * over the limit; 415 for other content types or encodings; 503 when the store failed (the
 * exporter retries). Requests come only from this machine (Host checked), with the token.
 */
export async function handleTraceExport(
  request: IncomingMessage,
  response: ServerResponse,
  options: TraceReceiverOptions,
): Promise<void> {
  const maxBytes = options.maxBodyBytes ?? MAX_TRACE_BODY_BYTES;
  const encoding = requestEncoding(request);
  const fail = (status: number, code: number, message: string) => {
    options.onRefused?.(status, message);
    answer(response, status, encoding ?? 'json', { code, message });
  };
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST');
    return fail(405, RPC.invalidArgument, 'Send traces with POST.');
  }
  if (!options.allowedHosts().includes(request.headers.host ?? '')) {
    return fail(403, RPC.permissionDenied, 'Host not allowed: the receiver answers only on this machine.');
  }
  if (request.headers.origin !== undefined) {
    return fail(403, RPC.permissionDenied, 'Requests from web pages are not accepted.');
  }
  const presented = request.headers[TOKEN_HEADER];
  if (typeof presented !== 'string' || presented === '') {
    return fail(
      401,
      RPC.unauthenticated,
      `Missing token: send the ${TOKEN_HEADER} header that \`fleetscope serve\` printed.`,
    );
  }
  // The value as pasted, or percent-decoded (how SDKs read OTEL_EXPORTER_OTLP_HEADERS).
  if (!safeEqual(presented, options.token) && !safeEqual(percentDecoded(presented), options.token)) {
    return fail(403, RPC.permissionDenied, 'Wrong token.');
  }
  if (!encoding) {
    return fail(
      415,
      RPC.invalidArgument,
      'Unsupported content type: send application/x-protobuf or application/json.',
    );
  }
  const contentEncoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (contentEncoding !== 'gzip' && contentEncoding !== 'identity') {
    return fail(
      415,
      RPC.invalidArgument,
      `Unsupported content encoding "${contentEncoding}": send gzip or none.`,
    );
  }
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.setHeader('Connection', 'close');
    return fail(
      413,
      RPC.resourceExhausted,
      `The body is ${declared} bytes; at most ${maxBytes} are accepted.`,
    );
  }
  let body: Buffer | null;
  try {
    body = await readBody(request, maxBytes);
  } catch {
    return; // The connection went away mid-body; there is no one to answer.
  }
  if (body === null) {
    response.setHeader('Connection', 'close');
    return fail(413, RPC.resourceExhausted, `The body is over ${maxBytes} bytes.`);
  }
  if (contentEncoding === 'gzip') {
    try {
      body = await gunzipAsync(body, { maxOutputLength: maxBytes });
    } catch (error) {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        return fail(413, RPC.resourceExhausted, `The body is over ${maxBytes} bytes once decompressed.`);
      }
      return fail(400, RPC.invalidArgument, 'The body is not valid gzip.');
    }
  }
  let batch: SpanBatch;
  try {
    const decoded = encoding === 'protobuf' ? decodeTraceRequest(body) : parseJson(body);
    batch = readOtlpTraces(decoded, liveSpanLimits((options.now ?? Date.now)()));
  } catch (error) {
    const reason =
      error instanceof OtlpShapeError || error instanceof SyntaxError
        ? error.message
        : `it does not decode as an ExportTraceServiceRequest (${error instanceof Error ? error.message : String(error)})`;
    return fail(400, RPC.invalidArgument, `Malformed trace export: ${reason}`);
  }
  if (batch.spans.length === 0 && batch.rejected.length > 0) {
    return fail(400, RPC.invalidArgument, `No span could be used: ${rejectionSummary(batch.rejected)}`);
  }
  let rejected: SpanBatch['rejected'];
  try {
    rejected = options.receive(batch).rejected;
  } catch (error) {
    response.setHeader('Retry-After', '2');
    return fail(
      503,
      RPC.unavailable,
      `The spans could not be stored (${error instanceof Error ? error.message : String(error)}); try again.`,
    );
  }
  const partial: PartialSuccess | null =
    rejected.length > 0 ? { rejectedSpans: rejected.length, errorMessage: rejectionSummary(rejected) } : null;
  answer(response, 200, encoding, partial);
}

function requestEncoding(request: IncomingMessage): Encoding | null {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw new SyntaxError(`the body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Reads the whole body, or null as soon as it passes `maxBytes` (the rest is not read). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        chunks.length = 0;
        resolve(null);
        request.pause();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    request.on('error', reject);
    request.on('aborted', () => reject(new Error('aborted')));
  });
}

function rejectionSummary(rejected: SpanBatch['rejected']): string {
  const first = rejected[0]?.reason ?? 'unusable';
  return rejected.length === 1
    ? `1 span rejected: ${first}.`
    : `${rejected.length} spans rejected; the first: ${first}.`;
}

/** Writes a success (ExportTraceServiceResponse) or an error (google.rpc.Status) body. */
function answer(
  response: ServerResponse,
  status: number,
  encoding: Encoding,
  body: PartialSuccess | null | { code: number; message: string },
): void {
  const isError = status !== 200;
  let payload: Uint8Array | string;
  if (encoding === 'protobuf') {
    const error = body as { code: number; message: string };
    payload = isError
      ? encodeStatus(error.code, error.message)
      : encodeTraceResponse(body as PartialSuccess | null);
  } else if (isError) {
    payload = JSON.stringify(body);
  } else {
    const partial = body as PartialSuccess | null;
    payload = JSON.stringify(
      partial
        ? {
            partialSuccess: {
              rejectedSpans: String(partial.rejectedSpans),
              errorMessage: partial.errorMessage,
            },
          }
        : {},
    );
  }
  response.writeHead(status, {
    'Content-Type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(payload);
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
