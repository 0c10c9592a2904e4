import { createHash } from 'node:crypto';

/** OTLP/JSON shapes (opentelemetry-proto, JSON encoding): ids are hex, times unixNano strings. */
export type OtlpValue =
  { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
export interface OtlpEvent {
  name: string;
  timeUnixNano: string;
  attributes: OtlpAttribute[];
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client. */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: OtlpEvent[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: 0 | 1 | 2; message?: string };
}

export const SPAN_KIND = { internal: 1, client: 3 } as const;

/** Deterministic ids, so exporting a session twice gives the same trace. */
export function traceIdFor(sessionId: string): string {
  return createHash('sha256').update(`trace:${sessionId}`).digest('hex').slice(0, 32);
}

export function spanIdFor(sessionId: string, key: string): string {
  return createHash('sha256').update(`span:${sessionId}:${key}`).digest('hex').slice(0, 16);
}

/** Epoch milliseconds (fractional allowed) as a unixNano string; exact past 2^53 via BigInt. */
export function unixNano(epochMs: number): string {
  return (BigInt(Math.round(epochMs * 1000)) * 1000n).toString();
}

/** Attributes from a record; undefined values are left out, integers become intValue. */
export function attributes(
  record: Record<string, string | number | boolean | undefined | null>,
): OtlpAttribute[] {
  const list: OtlpAttribute[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') list.push({ key, value: { stringValue: value } });
    else if (typeof value === 'boolean') list.push({ key, value: { boolValue: value } });
    else if (Number.isInteger(value)) list.push({ key, value: { intValue: String(value) } });
    else list.push({ key, value: { doubleValue: value } });
  }
  return list;
}
