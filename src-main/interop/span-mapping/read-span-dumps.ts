import { OtlpShapeError } from './read-otlp';
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
 * Span dumps written by Python tools rather than OTLP exporters:
 * - a list of `ReadableSpan.to_json()` objects (what OpenInference users save and share):
 *   ids as `0x`-prefixed hex, ISO times, `kind: "SpanKind.INTERNAL"`, flat attributes;
 * - any-agent's `AgentTrace` (`{spans, final_output}`): ids and nanosecond times as bare
 *   integers (already rounded by the JSON parser, which keeps parent links consistent),
 *   `parent: {span_id: null}` on the root.
 */
export type SpanDumpFormat = 'python-spans' | 'agent-trace';

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function looksLikeDumpedSpan(value: unknown): boolean {
  return (
    isNode(value) &&
    typeof value.name === 'string' &&
    isNode(value.context) &&
    'span_id' in value.context &&
    ('start_time' in value || 'attributes' in value)
  );
}

/** Which dump a parsed document is, or null. */
export function spanDumpFormat(value: unknown): SpanDumpFormat | null {
  if (isNode(value) && Array.isArray(value.spans) && looksLikeDumpedSpan(value.spans[0]))
    return 'agent-trace';
  if (Array.isArray(value) && value.length > 0 && looksLikeDumpedSpan(value[0])) return 'python-spans';
  return null;
}

export function readSpanDump(value: unknown, limits: SpanLimits): SpanBatch {
  const format = spanDumpFormat(value);
  if (!format) throw new OtlpShapeError('Expected a list of spans with "context.span_id" at $.');
  const items = (format === 'agent-trace' ? (value as Node).spans : value) as unknown[];
  const base = format === 'agent-trace' ? '$.spans' : '$';
  const batch: SpanBatch = { spans: [], rejected: [] };
  items.forEach((item, index) => {
    const path = `${base}[${index}]`;
    if (!isNode(item)) throw new OtlpShapeError(`${path} must be an object.`);
    const span = readDumpedSpan(item);
    const name = typeof item.name === 'string' ? item.name : '';
    if (typeof span === 'string') {
      batch.rejected.push({ spanId: '', reason: `span "${name.slice(0, 80)}" at ${path}: ${span}` });
      return;
    }
    const problem = spanProblem(span, limits);
    if (problem)
      batch.rejected.push({
        spanId: span.spanId,
        reason: `span "${name.slice(0, 80)}" at ${path}: ${problem}`,
      });
    else batch.spans.push(span);
  });
  return batch;
}

function readDumpedSpan(node: Node): TraceSpan | string {
  const context = isNode(node.context) ? node.context : {};
  const traceId = dumpedId(context.trace_id, 16);
  const spanId = dumpedId(context.span_id, 8);
  if (!traceId) return 'context.trace_id is not a 128-bit id';
  if (!spanId) return 'context.span_id is not a 64-bit id';
  const parentRaw = isNode(node.parent) ? node.parent.span_id : node.parent_id;
  const parentSpanId = parentRaw === null || parentRaw === undefined ? null : dumpedId(parentRaw, 8);
  if (parentSpanId === undefined) return 'its parent id is not a 64-bit id';
  const status = isNode(node.status) ? node.status : {};
  const resource = isNode(node.resource) && isNode(node.resource.attributes) ? node.resource.attributes : {};
  const events: SpanEvent[] = Array.isArray(node.events)
    ? node.events.filter(isNode).map((event) => ({
        name: typeof event.name === 'string' ? event.name : '',
        timeMs: dumpedTime(event.timestamp),
        attributes: plainAttributes(event.attributes),
      }))
    : [];
  const scope = isNode(node.instrumentation_scope) ? node.instrumentation_scope.name : undefined;
  return {
    traceId,
    spanId,
    parentSpanId,
    name: typeof node.name === 'string' ? node.name : '',
    kind: dumpedKind(node.kind),
    startMs: dumpedTime(node.start_time),
    endMs: dumpedTime(node.end_time),
    attributes: plainAttributes(node.attributes),
    events,
    status: {
      code: dumpedStatus(status.status_code),
      message: typeof status.description === 'string' ? status.description : '',
    },
    resource: plainAttributes(resource),
    scope: typeof scope === 'string' ? scope : '',
  };
}

/** `0x…` hex, plain hex, or a bare integer, as lowercase hex of `bytes` bytes. */
function dumpedId(value: unknown, bytes: number): string | undefined {
  let big: bigint | null = null;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) big = BigInt(value);
  else if (typeof value === 'string' && /^(0x)?[0-9a-fA-F]{1,32}$/.test(value)) {
    big = BigInt(value.startsWith('0x') ? value : `0x${value}`);
  } else if (typeof value === 'string' && /^\d{1,40}$/.test(value)) big = BigInt(value);
  if (big === null || big <= 0n || big >= 1n << BigInt(bytes * 8)) return undefined;
  return big.toString(16).padStart(bytes * 2, '0');
}

/** ISO 8601 text or integer nanoseconds since the epoch, as epoch milliseconds. */
function dumpedTime(value: unknown): number {
  if (typeof value === 'number') return value / 1e6;
  if (typeof value === 'string') {
    if (/^\d{10,}$/.test(value)) return Number(BigInt(value) / 1000n) / 1000;
    const micros = /\.(\d{4,9})/.exec(value);
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return Number.NaN;
    // Date.parse keeps milliseconds only; put back the microseconds Python wrote.
    return micros?.[1] ? Math.floor(ms) + (Number(micros[1].padEnd(6, '0').slice(0, 6)) % 1000) / 1000 : ms;
  }
  return Number.NaN;
}

function dumpedKind(value: unknown): SpanKindCode {
  const name = typeof value === 'string' ? value.replace(/^SpanKind\./, '').toUpperCase() : '';
  const kinds: Record<string, SpanKindCode> = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
  return kinds[name] ?? (typeof value === 'number' && value >= 0 && value <= 5 ? (value as SpanKindCode) : 0);
}

function dumpedStatus(value: unknown): StatusCode {
  const name = typeof value === 'string' ? value.replace(/^StatusCode\./, '').toUpperCase() : '';
  if (name === 'OK') return 1;
  if (name === 'ERROR') return 2;
  return 0;
}

function plainAttributes(value: unknown): Attributes {
  if (!isNode(value)) return {};
  const record: Attributes = {};
  for (const [key, item] of Object.entries(value)) record[key] = item as AttributeValue;
  return record;
}
