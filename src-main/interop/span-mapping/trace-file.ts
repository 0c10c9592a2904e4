import type { ImportedEvent, ImportedSessionMeta } from '../../history/ports';
import { TransferError } from '../import/transfer-error';
import { OtlpShapeError, looksLikeOtlpTraces, readOtlpTraces } from './read-otlp';
import { readSpanDump, spanDumpFormat } from './read-span-dumps';
import { SessionMapper } from './session-mapper';
import { SpanIndex, type ResolvedSpan } from './span-index';
import { FILE_SPAN_LIMITS } from './span-limits';
import type { SpanBatch } from './span';

/** Trace files, by the `source` their sessions record. */
export const TRACE_FORMATS = ['otlp-json', 'otel-span-dump', 'any-agent-trace'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Which trace format a parsed JSON document is, or null when it is none. */
export function traceFormatOf(value: unknown): TraceFormat | null {
  if (looksLikeOtlpTraces(value)) return 'otlp-json';
  switch (spanDumpFormat(value)) {
    case 'agent-trace':
      return 'any-agent-trace';
    case 'python-spans':
      return 'otel-span-dump';
    case null:
      return null;
  }
}

export interface TraceImport {
  meta: ImportedSessionMeta;
  events: ImportedEvent[];
  messageCount: number;
}

/**
 * A trace file as sessions: every span of the file, placed as the live receiver places them
 * (the file is one complete batch, so nothing waits for a parent) and grouped by the same rule:
 * a conversation or session id groups traces into one session, otherwise each trace is its own.
 * Sessions come in the order they started. A group with no agent, model or tool span (which the
 * live receiver keeps out of sessions) is kept as unmapped spans in the first session, never
 * dropped; a file with no such span at all is refused.
 */
export function importTraceFile(value: unknown, format: TraceFormat): TraceImport[] {
  let batch: SpanBatch;
  try {
    batch =
      format === 'otlp-json'
        ? readOtlpTraces(value, FILE_SPAN_LIMITS)
        : readSpanDump(value, FILE_SPAN_LIMITS);
  } catch (error) {
    if (error instanceof OtlpShapeError)
      throw new TransferError('invalid-input', `Invalid trace file: ${error.message}`);
    throw error;
  }
  return importTraceSpans(batch, format);
}

/** The spans read from a trace file, as one session per conversation (see `importTraceFile`). */
export function importTraceSpans(batch: SpanBatch, format: TraceFormat): TraceImport[] {
  if (batch.rejected.length > 0) {
    const first = batch.rejected[0]?.reason ?? '';
    throw new TransferError(
      'invalid-input',
      `The trace holds ${batch.rejected.length} span${batch.rejected.length === 1 ? '' : 's'} that cannot be used; the first: ${first}.`,
    );
  }
  if (batch.spans.length === 0) {
    throw new TransferError('invalid-input', 'The trace file holds no spans: there is nothing to import.');
  }
  const index = new SpanIndex({
    holdMs: 0,
    retainMs: Number.POSITIVE_INFINITY,
    maxSpans: Number.POSITIVE_INFINITY,
  });
  index.add(batch.spans, 0);
  const groups = [...index.drain(0, true).values()];
  const conversations = groups
    .filter((group) => group.some((span) => span.role !== 'other'))
    .sort((a, b) => startOf(a) - startOf(b));
  const first = conversations[0];
  if (!first) {
    const spans = groups.flat();
    const names = [...new Set(spans.map((span) => span.span.name))]
      .slice(0, 5)
      .map((name) => JSON.stringify(name));
    throw new TransferError(
      'invalid-input',
      `The trace holds ${spans.length} spans (${names.join(', ')}…) but none is an agent, model or tool in the OpenTelemetry GenAI or OpenInference conventions, so there is no conversation to show.`,
    );
  }
  const outside = groups.filter((group) => group.every((span) => span.role === 'other')).flat();
  if (outside.length > 0) {
    conversations[0] = [...first, ...outside].sort((a, b) => a.span.startMs - b.span.startMs);
  }
  return conversations.map((spans) => mapSession(spans, format));
}

function startOf(spans: readonly ResolvedSpan[]): number {
  return Math.min(...spans.map((span) => span.span.startMs));
}

/** One session's spans, in start order, mapped as the live receiver maps them. */
function mapSession(spans: readonly ResolvedSpan[], format: TraceFormat): TraceImport {
  const createdAt = startOf(spans);
  const mapper = new SessionMapper(createdAt);
  const events = mapper.map(spans, undefined, true);
  events.push(...mapper.finish(STOP_REASONS[format]));
  const header = mapper.header;
  if (!header) throw new Error('The trace mapper wrote no session header.');
  return {
    meta: {
      title: header.title,
      task: header.task,
      fleetName: header.fleetName,
      source: format,
      createdAt: Math.round(createdAt),
      tags: ['imported', 'trace'],
    },
    events,
    messageCount: mapper.messageCount,
  };
}

const STOP_REASONS: Record<TraceFormat, string> = {
  'otlp-json': 'Imported from an OpenTelemetry (OTLP/JSON) trace; it ended with its last span.',
  'otel-span-dump': 'Imported from a span dump; it ended with its last span.',
  'any-agent-trace': 'Imported from an any-agent trace; it ended with its last span.',
};
