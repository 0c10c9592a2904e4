import type { Message, RunEvent } from '@shared/domain';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { SessionMapper } from '../../../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../../../src-main/interop/span-mapping/span-index';
import type { Attributes, TraceSpan } from '../../../../src-main/interop/span-mapping/span';

/** A normalized span for mapping tests: ids from small numbers, times in ms after `BASE`. */
export const BASE = Date.UTC(2026, 0, 15, 9, 0, 0);

export function span(
  id: number,
  parent: number | null,
  name: string,
  start: number,
  end: number,
  attributes: Attributes,
  extra: Partial<TraceSpan> = {},
): TraceSpan {
  return {
    traceId: (extra.traceId ?? 'a'.repeat(32)).padStart(32, '0'),
    spanId: id.toString(16).padStart(16, '0'),
    parentSpanId: parent === null ? null : parent.toString(16).padStart(16, '0'),
    name,
    kind: 1,
    startMs: BASE + start,
    endMs: BASE + end,
    attributes,
    events: [],
    status: { code: 0, message: '' },
    resource: {},
    scope: 'test',
    ...extra,
  };
}

export const json = (value: unknown): string => JSON.stringify(value);

/** Spans as one complete batch, mapped as the file importer maps them, numbered as the store does. */
export function mapSpans(spans: TraceSpan[]): RunEvent[] {
  const index = new SpanIndex({ holdMs: 0, retainMs: Infinity, maxSpans: Infinity });
  index.add(spans, 0);
  const all = [...index.drain(0, true).values()].flat().sort((a, b) => a.span.startMs - b.span.startMs);
  const mapper = new SessionMapper(Math.min(...all.map((s) => s.span.startMs)));
  const events = [...mapper.map(all, undefined, true), ...mapper.finish('done')];
  return events.map((event, i) => ({ ...event, sessionId: 's', seq: i + 1 }) as RunEvent);
}

/** The messages of a log in the order it started them (the transcript's order), as completed. */
export function messagesInLogOrder(events: ReadonlyArray<ImportedEvent | RunEvent>): Message[] {
  const completed = new Map<string, Message>();
  for (const event of events)
    if (event.kind === 'message.completed') completed.set(event.payload.message.id, event.payload.message);
  return events.flatMap((event) => {
    const message = event.kind === 'message.started' ? completed.get(event.payload.messageId) : undefined;
    return message ? [message] : [];
  });
}

/** The spans as an OTLP/JSON file, as a collector writes it (every attribute a string). */
export function otlpJson(spans: TraceSpan[]): string {
  const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'supervisor-app' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: Object.entries(s.attributes).map(([key, value]) => ({
                key,
                value: { stringValue: String(value) },
              })),
              status: {},
            })),
          },
        ],
      },
    ],
  });
}
