import { ROOT_CONTEXT, trace, type Attributes, type Span, type SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/**
 * The real OpenTelemetry JS SDK sending to a receiver with its standard OTLP exporters. Spans
 * are made with explicit start and end times (epoch ms) and parents, so a test states the
 * timeline it expects back.
 */
export interface SpanSpec {
  name: string;
  start: number;
  end: number;
  attributes?: Attributes;
  events?: Array<{ name: string; at: number; attributes?: Attributes }>;
  kind?: SpanKind;
  error?: string;
}

export interface Sender {
  /** Starts and ends a span (a child of `parent` when given) and returns it. */
  span(spec: SpanSpec, parent?: Span): Span;
  /** Starts a span to end later (a parent that outlives its children, as real ones do). */
  open(spec: Omit<SpanSpec, 'end'>, parent?: Span): Span;
  /** Sends everything ended so far; resolves when the receiver answered. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export type Protocol = 'protobuf' | 'json';

export function makeSender(options: {
  protocol: Protocol;
  /** The endpoint's base (the exporter adds /v1/traces); omit to use OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint?: string;
  headers?: Record<string, string>;
  serviceName?: string;
  /**
   * `batch` (default): spans go out together on `flush`, one request, as BatchSpanProcessor
   * sends them; `each`: one request per span as it ends (SimpleSpanProcessor).
   */
  sending?: 'batch' | 'each';
}): Sender {
  const config = {
    ...(options.endpoint ? { url: `${options.endpoint}/v1/traces` } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
  const exporter: SpanExporter =
    options.protocol === 'protobuf' ? new ProtoExporter(config) : new JsonExporter(config);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'otel-test' }),
    spanProcessors: [
      options.sending === 'each'
        ? new SimpleSpanProcessor(exporter)
        : new BatchSpanProcessor(exporter, {
            scheduledDelayMillis: 3_600_000,
            maxExportBatchSize: 10_000,
            maxQueueSize: 10_000,
          }),
    ],
  });
  const tracer = provider.getTracer('fleetscope-tests', '1.0.0');
  const start = (spec: Omit<SpanSpec, 'end'>, parent?: Span): Span => {
    const context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const span = tracer.startSpan(
      spec.name,
      { startTime: spec.start, attributes: spec.attributes, kind: spec.kind },
      context,
    );
    for (const event of spec.events ?? []) span.addEvent(event.name, event.attributes ?? {}, event.at);
    if (spec.error) span.setStatus({ code: 2, message: spec.error });
    return span;
  };
  return {
    span(spec, parent) {
      const span = start(spec, parent);
      span.end(spec.end);
      return span;
    },
    open: start,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
