import type { IncomingMessage } from 'node:http';

/** What one OTLP/HTTP request came to. */
export type PostOutcome =
  /** 2xx; `rejected` spans and the collector's message from a partial success. */
  | { kind: 'ok'; rejected: number; message: string | null }
  /** Worth another try (429, 502, 503, 504, no answer); `retryAfterMs` from Retry-After. */
  | { kind: 'retry'; reason: string; retryAfterMs: number | null }
  /** Not worth another try (any other status). */
  | { kind: 'refused'; reason: string };

/** The statuses the OTLP/HTTP specification lists as retryable. */
const RETRYABLE = new Set([429, 502, 503, 504]);
/** Bytes of a response read at most (a partial success or an error message is small). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_REASON = 300;

/** Reads a collector's answer and classifies it as the OTLP/HTTP specification says. */
export async function postOutcome(response: IncomingMessage): Promise<PostOutcome> {
  const status = response.statusCode ?? 0;
  const text = await readSome(response);
  if (status >= 200 && status < 300) return { kind: 'ok', ...partialSuccess(text) };
  const reason = `HTTP ${status}${describe(text)}`;
  if (RETRYABLE.has(status))
    return { kind: 'retry', reason, retryAfterMs: retryAfterMs(response.headers['retry-after']) };
  return { kind: 'refused', reason };
}

/**
 * Retry-After as milliseconds: delay-seconds or an HTTP date; null when absent or unreadable
 * (the caller's backoff applies then).
 */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (header === undefined) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

function readSome(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    response.on('data', (part: Buffer) => {
      if (size >= MAX_RESPONSE_BYTES) return;
      parts.push(part);
      size += part.length;
    });
    response.on('end', () => resolve(Buffer.concat(parts).subarray(0, MAX_RESPONSE_BYTES).toString('utf8')));
    response.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ExportTraceServiceResponse.partialSuccess in OTLP/JSON (camelCase or snake_case). */
function partialSuccess(text: string): { rejected: number; message: string | null } {
  const body = parseJson(text);
  if (!isRecord(body)) return { rejected: 0, message: null };
  const partial = body.partialSuccess ?? body.partial_success;
  if (!isRecord(partial)) return { rejected: 0, message: null };
  const count = Number(partial.rejectedSpans ?? partial.rejected_spans ?? 0);
  const message = partial.errorMessage ?? partial.error_message;
  return {
    rejected: Number.isFinite(count) && count > 0 ? Math.floor(count) : 0,
    message: typeof message === 'string' && message ? message.slice(0, MAX_REASON) : null,
  };
}

/** ": <message>" from a google.rpc.Status body or plain text; empty when there is none. */
function describe(text: string): string {
  const body = parseJson(text);
  const message = isRecord(body) && typeof body.message === 'string' ? body.message : text;
  const clean = message.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON);
  return clean ? `: ${clean}` : '';
}
