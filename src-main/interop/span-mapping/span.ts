/**
 * One span, normalized from any of the encodings Fleetscope reads (OTLP protobuf, OTLP/JSON,
 * Python `ReadableSpan.to_json()` dumps, any-agent traces): hex ids, epoch milliseconds, and
 * attributes as plain JSON values. Every mapper below works on this shape only.
 */
export type AttributeValue =
  null | boolean | number | string | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

/** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type SpanKindCode = 0 | 1 | 2 | 3 | 4 | 5;
/** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

export interface SpanEvent {
  name: string;
  /** Epoch milliseconds (fractional). */
  timeMs: number;
  attributes: Attributes;
}

export interface TraceSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKindCode;
  /** Epoch milliseconds (fractional). */
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events: SpanEvent[];
  status: { code: StatusCode; message: string };
  /** The resource's attributes (service.name and the like). */
  resource: Attributes;
  /** The instrumentation scope's name. */
  scope: string;
}

/** A span that could not be used, and why (counted in OTLP partial success). */
export interface RejectedSpan {
  spanId: string;
  reason: string;
}

export interface SpanBatch {
  spans: TraceSpan[];
  rejected: RejectedSpan[];
}
