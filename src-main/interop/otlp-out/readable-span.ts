import { SpanKind, TraceFlags, type Attributes, type HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { OtlpAttribute, OtlpSpan } from './otlp-span';

/** The instrumentation scope every live-exported span names. */
export const LIVE_SCOPE = { name: 'fleetscope.live-export', version: '1' } as const;

const NANOS_PER_SECOND = 1_000_000_000n;

/**
 * A finished span of the OTLP mapping (`OtlpSpanMapper`, which works from stored events with their
 * own times and derived ids) as the SDK's `ReadableSpan`, so the SDK's batch processor and OTLP
 * exporters send it unchanged: same ids, parent, times to the nanosecond, attributes, events and
 * status. It is already ended; the processor only reads it.
 */
export function toReadableSpan(span: OtlpSpan, resource: Resource): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const startTime = hrTime(span.startTimeUnixNano);
  const endTime = hrTime(span.endTimeUnixNano);
  const elapsed = BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano);
  return {
    name: span.name,
    kind: span.kind === 3 ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED }
      : undefined,
    startTime,
    endTime,
    duration: hrTime(String(elapsed > 0n ? elapsed : 0n)),
    status: span.status.message === undefined ? { code: span.status.code } : { ...span.status },
    attributes: plain(span.attributes),
    links: [],
    events: span.events.map((event) => ({
      name: event.name,
      time: hrTime(event.timeUnixNano),
      attributes: plain(event.attributes),
    })),
    ended: true,
    resource,
    instrumentationScope: LIVE_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** A unixNano decimal string as [seconds, nanoseconds]. */
function hrTime(unixNano: string): HrTime {
  const nanos = BigInt(unixNano);
  return [Number(nanos / NANOS_PER_SECOND), Number(nanos % NANOS_PER_SECOND)];
}

/** OTLP/JSON attributes as the SDK's plain record (an int64 as a number: counts, never ids). */
function plain(list: OtlpAttribute[]): Attributes {
  const record: Attributes = {};
  for (const { key, value } of list) {
    if ('stringValue' in value) record[key] = value.stringValue;
    else if ('intValue' in value) record[key] = Number(value.intValue);
    else if ('doubleValue' in value) record[key] = value.doubleValue;
    else record[key] = value.boolValue;
  }
  return record;
}
