import type {
  AttributeValue,
  Attributes,
  SpanBatch,
  SpanEvent,
  SpanKindCode,
  StatusCode,
  TraceSpan,
} from './span';
import { spanProblem, type SpanLimits } from './span-limits';

/**
 * The request (or file) is not an OTLP trace export at all: answered with 400 by the receiver,
 * with an `invalid-input` error by the importer. The message names the JSON path.
 */
export class OtlpShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpShapeError';
  }
}

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field in OTLP/JSON's lowerCamelCase or, as some writers keep them, the proto's snake_case. */
function field(node: Node, camel: string): unknown {
  if (camel in node) return node[camel];
  const snake = camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return node[snake];
}

function list(node: Node, camel: string, path: string): unknown[] {
  const value = field(node, camel);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpShapeError(`${path}.${camel} must be a list.`);
  return value;
}

/**
 * True when a parsed JSON document means to be an OTLP trace export (TracesData): it has
 * `resourceSpans`; `readOtlpTraces` then says what is wrong with it, if anything.
 */
export function looksLikeOtlpTraces(value: unknown): boolean {
  return isNode(value) && field(value, 'resourceSpans') !== undefined;
}

/**
 * Reads an ExportTraceServiceRequest / TracesData in its OTLP/JSON form, or as protobufjs's
 * `toObject` gives it (ids as base64 there, hex in OTLP/JSON; both are read). Spans that break
 * `limits` or carry unusable ids are returned as rejected; a document that is not a trace export
 * throws OtlpShapeError.
 */
export function readOtlpTraces(value: unknown, limits: SpanLimits): SpanBatch {
  if (!isNode(value)) throw new OtlpShapeError('Expected an object with "resourceSpans" at $.');
  const batch: SpanBatch = { spans: [], rejected: [] };
  const resourceSpans = list(value, 'resourceSpans', '$');
  resourceSpans.forEach((entry, r) => {
    const rPath = `$.resourceSpans[${r}]`;
    if (!isNode(entry)) throw new OtlpShapeError(`${rPath} must be an object.`);
    const resourceNode = field(entry, 'resource');
    const resource = isNode(resourceNode) ? readKeyValues(resourceNode.attributes, `${rPath}.resource`) : {};
    // `instrumentationLibrarySpans` is the name before OTLP 0.15; old collectors still write it.
    const scopes = [
      ...list(entry, 'scopeSpans', rPath),
      ...list(entry, 'instrumentationLibrarySpans', rPath),
    ];
    scopes.forEach((scopeEntry, s) => {
      const sPath = `${rPath}.scopeSpans[${s}]`;
      if (!isNode(scopeEntry)) throw new OtlpShapeError(`${sPath} must be an object.`);
      const scopeNode = field(scopeEntry, 'scope') ?? field(scopeEntry, 'instrumentationLibrary');
      const scope = isNode(scopeNode) && typeof scopeNode.name === 'string' ? scopeNode.name : '';
      list(scopeEntry, 'spans', sPath).forEach((spanNode, i) => {
        const path = `${sPath}.spans[${i}]`;
        if (!isNode(spanNode)) throw new OtlpShapeError(`${path} must be an object.`);
        const read = readSpan(spanNode, path, resource, scope);
        if ('reason' in read) {
          batch.rejected.push(read);
          return;
        }
        const problem = spanProblem(read, limits);
        if (problem)
          batch.rejected.push({ spanId: read.spanId, reason: `span "${clip(read.name)}": ${problem}` });
        else batch.spans.push(read);
      });
    });
  });
  return batch;
}

function readSpan(
  node: Node,
  path: string,
  resource: Attributes,
  scope: string,
): TraceSpan | { spanId: string; reason: string } {
  const name = typeof node.name === 'string' ? node.name : '';
  const traceId = readId(field(node, 'traceId'), 16);
  const spanId = readId(field(node, 'spanId'), 8);
  const parentRaw = field(node, 'parentSpanId');
  const parentSpanId =
    parentRaw === undefined || parentRaw === null || parentRaw === '' ? null : readId(parentRaw, 8);
  const label = `span "${clip(name)}" at ${path}`;
  if (!traceId) return { spanId: spanId ?? '', reason: `${label}: traceId is not 16 non-zero bytes` };
  if (!spanId) return { spanId: '', reason: `${label}: spanId is not 8 non-zero bytes` };
  if (parentSpanId === undefined) return { spanId, reason: `${label}: parentSpanId is not 8 bytes` };
  const startMs = readNanosAsMs(field(node, 'startTimeUnixNano'));
  const endMs = readNanosAsMs(field(node, 'endTimeUnixNano'));
  const statusNode = field(node, 'status');
  const events: SpanEvent[] = [];
  const rawEvents = field(node, 'events');
  if (Array.isArray(rawEvents)) {
    rawEvents.forEach((event, e) => {
      if (!isNode(event)) return;
      events.push({
        name: typeof event.name === 'string' ? event.name : '',
        timeMs: readNanosAsMs(field(event, 'timeUnixNano')),
        attributes: readKeyValues(event.attributes, `${path}.events[${e}]`),
      });
    });
  }
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: readKind(node.kind),
    startMs,
    endMs,
    attributes: readKeyValues(node.attributes, path),
    events,
    status: isNode(statusNode)
      ? {
          code: readStatusCode(statusNode.code),
          message: typeof statusNode.message === 'string' ? statusNode.message : '',
        }
      : { code: 0, message: '' },
    resource,
    scope,
  };
}

/**
 * A trace or span id as lowercase hex: OTLP/JSON writes hex; protobuf's canonical JSON and
 * protobufjs write base64; raw bytes come as Uint8Array. Undefined when it is none of these
 * with the right length, or all zero (the spec's invalid id).
 */
export function readId(value: unknown, bytes: number): string | undefined {
  let hex: string | undefined;
  if (value instanceof Uint8Array) {
    if (value.length === bytes) hex = Buffer.from(value).toString('hex');
  } else if (typeof value === 'string') {
    if (value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) hex = value.toLowerCase();
    else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
      const decoded = Buffer.from(value, 'base64');
      if (decoded.length === bytes) hex = decoded.toString('hex');
    }
  }
  return hex && /[1-9a-f]/.test(hex) ? hex : undefined;
}

/** unixNano as a decimal string or number (OTLP/JSON allows both) to epoch ms; NaN when absent. */
export function readNanosAsMs(value: unknown): number {
  if (typeof value === 'number') return value / 1e6;
  if (typeof value === 'string' && /^\d{1,30}$/.test(value)) {
    const nanos = BigInt(value);
    return Number(nanos / 1000n) / 1000;
  }
  if (typeof value === 'object' && value !== null && 'low' in value && 'high' in value) {
    // A protobufjs Long, when a caller decoded without `longs: String`.
    const { low, high } = value as { low: number; high: number };
    return ((high >>> 0) * 2 ** 32 + (low >>> 0)) / 1e6;
  }
  return Number.NaN;
}

const KIND_NAMES: Record<string, SpanKindCode> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

function readKind(value: unknown): SpanKindCode {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 5) {
    return value as SpanKindCode;
  }
  return typeof value === 'string' ? (KIND_NAMES[value] ?? 0) : 0;
}

function readStatusCode(value: unknown): StatusCode {
  if (value === 1 || value === 'STATUS_CODE_OK') return 1;
  if (value === 2 || value === 'STATUS_CODE_ERROR') return 2;
  return 0;
}

/** A list of OTLP KeyValue as a plain record; later duplicates win, as in the SDKs. */
export function readKeyValues(value: unknown, path: string): Attributes {
  const record: Attributes = {};
  if (value === undefined || value === null) return record;
  if (!Array.isArray(value)) throw new OtlpShapeError(`${path}.attributes must be a list.`);
  for (const item of value) {
    if (!isNode(item) || typeof item.key !== 'string') continue;
    record[item.key] = readAnyValue(item.value, 0);
  }
  return record;
}

/** Nesting beyond this is cut here (the span limits refuse such spans anyway). */
const MAX_READ_DEPTH = 32;

function readAnyValue(value: unknown, depth: number): AttributeValue {
  if (!isNode(value) || depth > MAX_READ_DEPTH) return null;
  const v = value;
  const string = field(v, 'stringValue');
  if (typeof string === 'string') return string;
  const bool = field(v, 'boolValue');
  if (typeof bool === 'boolean') return bool;
  const int = field(v, 'intValue');
  if (typeof int === 'number') return int;
  if (typeof int === 'string' && /^-?\d+$/.test(int)) {
    const parsed = Number(int);
    return Number.isSafeInteger(parsed) ? parsed : int;
  }
  if (isNode(int) && 'low' in int) return readNanosAsMs(int) * 1e6;
  const double = field(v, 'doubleValue');
  if (typeof double === 'number') return double;
  if (typeof double === 'string' && double.trim() !== '' && !Number.isNaN(Number(double)))
    return Number(double);
  const array = field(v, 'arrayValue');
  if (isNode(array)) {
    return Array.isArray(array.values) ? array.values.map((item) => readAnyValue(item, depth + 1)) : [];
  }
  const kvlist = field(v, 'kvlistValue');
  if (isNode(kvlist)) {
    const record: { [key: string]: AttributeValue } = {};
    if (Array.isArray(kvlist.values)) {
      for (const item of kvlist.values) {
        if (isNode(item) && typeof item.key === 'string')
          record[item.key] = readAnyValue(item.value, depth + 1);
      }
    }
    return record;
  }
  const bytes = field(v, 'bytesValue');
  if (typeof bytes === 'string') return bytes;
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  return null;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
