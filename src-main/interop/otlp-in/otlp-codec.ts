import protobuf from 'protobufjs';
import { OTLP_TRACE_SCHEMA } from './otlp-schema';

/**
 * OTLP's protobuf messages (otlp-schema.ts, written from the specification), resolved once.
 * Decoding gives the same object tree OTLP/JSON has (lowerCamelCase fields, int64 as decimal
 * strings, enums as numbers, bytes as base64), so one reader serves both encodings.
 */
interface OtlpTypes {
  request: protobuf.Type;
  response: protobuf.Type;
  status: protobuf.Type;
}

let types: OtlpTypes | null = null;

function otlpTypes(): OtlpTypes {
  if (types) return types;
  const root = new protobuf.Root();
  const any = protobuf.common.get('google/protobuf/any.proto');
  if (any?.nested) root.addJSON(any.nested);
  root.addJSON(OTLP_TRACE_SCHEMA.nested ?? {});
  root.resolveAll();
  types = {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    status: root.lookupType('google.rpc.Status'),
  };
  return types;
}

/** Decodes an ExportTraceServiceRequest; throws on bytes that are not one. */
export function decodeTraceRequest(body: Uint8Array): unknown {
  const { request } = otlpTypes();
  const message = request.decode(body);
  return request.toObject(message, {
    longs: String,
    enums: Number,
    bytes: String,
    defaults: false,
    arrays: true,
  });
}

/** Encodes an ExportTraceServiceRequest from its OTLP/JSON-shaped object (tests, the bench). */
export function encodeTraceRequest(value: Record<string, unknown>): Uint8Array {
  const { request } = otlpTypes();
  return request.encode(request.fromObject(value)).finish();
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** The ExportTraceServiceResponse, protobuf-encoded; no partial success means full success. */
export function encodeTraceResponse(partial: PartialSuccess | null): Uint8Array {
  const { response } = otlpTypes();
  return response.encode(response.fromObject(partial ? { partialSuccess: partial } : {})).finish();
}

/** A google.rpc.Status, protobuf-encoded (the body of OTLP/HTTP error responses). */
export function encodeStatus(code: number, message: string): Uint8Array {
  const { status } = otlpTypes();
  return status.encode(status.fromObject({ code, message })).finish();
}

/** Decoders for what the receiver answers (tests read responses with them). */
export function decodeTraceResponse(body: Uint8Array): {
  partialSuccess?: { rejectedSpans?: string; errorMessage?: string };
} {
  const { response } = otlpTypes();
  return response.toObject(response.decode(body), { longs: String, defaults: false }) as {
    partialSuccess?: { rejectedSpans?: string; errorMessage?: string };
  };
}

export function decodeStatus(body: Uint8Array): { code?: number; message?: string } {
  const { status } = otlpTypes();
  return status.toObject(status.decode(body), { defaults: false }) as { code?: number; message?: string };
}
