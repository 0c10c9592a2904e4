import type { INamespace } from 'protobufjs';

/**
 * The OTLP trace messages as a protobufjs descriptor, written from the OTLP specification's field
 * names and numbers (opentelemetry.proto.{common,resource,trace,collector.trace}.v1, and the
 * google.rpc.Status that OTLP/HTTP returns with errors). Field names are lowerCamelCase, as
 * OTLP/JSON spells them, so one reader serves both encodings. Only what a trace export carries is
 * declared; unknown fields in a message are skipped by the decoder, as protobuf requires.
 */
const field = (type: string, id: number, rule?: 'repeated') => (rule ? { type, id, rule } : { type, id });

const common = {
  AnyValue: {
    oneofs: {
      value: {
        oneof: [
          'stringValue',
          'boolValue',
          'intValue',
          'doubleValue',
          'arrayValue',
          'kvlistValue',
          'bytesValue',
        ],
      },
    },
    fields: {
      stringValue: field('string', 1),
      boolValue: field('bool', 2),
      intValue: field('int64', 3),
      doubleValue: field('double', 4),
      arrayValue: field('ArrayValue', 5),
      kvlistValue: field('KeyValueList', 6),
      bytesValue: field('bytes', 7),
    },
  },
  ArrayValue: { fields: { values: field('AnyValue', 1, 'repeated') } },
  KeyValueList: { fields: { values: field('KeyValue', 1, 'repeated') } },
  KeyValue: { fields: { key: field('string', 1), value: field('AnyValue', 2) } },
  InstrumentationScope: {
    fields: {
      name: field('string', 1),
      version: field('string', 2),
      attributes: field('KeyValue', 3, 'repeated'),
      droppedAttributesCount: field('uint32', 4),
    },
  },
};

const C = 'opentelemetry.proto.common.v1.';

const resource = {
  Resource: {
    fields: { attributes: field(`${C}KeyValue`, 1, 'repeated'), droppedAttributesCount: field('uint32', 2) },
  },
};

const trace = {
  TracesData: { fields: { resourceSpans: field('ResourceSpans', 1, 'repeated') } },
  ResourceSpans: {
    fields: {
      resource: field('opentelemetry.proto.resource.v1.Resource', 1),
      scopeSpans: field('ScopeSpans', 2, 'repeated'),
      schemaUrl: field('string', 3),
    },
  },
  ScopeSpans: {
    fields: {
      scope: field(`${C}InstrumentationScope`, 1),
      spans: field('Span', 2, 'repeated'),
      schemaUrl: field('string', 3),
    },
  },
  Span: {
    fields: {
      traceId: field('bytes', 1),
      spanId: field('bytes', 2),
      traceState: field('string', 3),
      parentSpanId: field('bytes', 4),
      flags: field('fixed32', 16),
      name: field('string', 5),
      kind: field('SpanKind', 6),
      startTimeUnixNano: field('fixed64', 7),
      endTimeUnixNano: field('fixed64', 8),
      attributes: field(`${C}KeyValue`, 9, 'repeated'),
      droppedAttributesCount: field('uint32', 10),
      events: field('Event', 11, 'repeated'),
      droppedEventsCount: field('uint32', 12),
      links: field('Link', 13, 'repeated'),
      droppedLinksCount: field('uint32', 14),
      status: field('Status', 15),
    },
    nested: {
      SpanKind: {
        values: {
          SPAN_KIND_UNSPECIFIED: 0,
          SPAN_KIND_INTERNAL: 1,
          SPAN_KIND_SERVER: 2,
          SPAN_KIND_CLIENT: 3,
          SPAN_KIND_PRODUCER: 4,
          SPAN_KIND_CONSUMER: 5,
        },
      },
      Event: {
        fields: {
          timeUnixNano: field('fixed64', 1),
          name: field('string', 2),
          attributes: field(`${C}KeyValue`, 3, 'repeated'),
          droppedAttributesCount: field('uint32', 4),
        },
      },
      Link: {
        fields: {
          traceId: field('bytes', 1),
          spanId: field('bytes', 2),
          traceState: field('string', 3),
          attributes: field(`${C}KeyValue`, 4, 'repeated'),
          droppedAttributesCount: field('uint32', 5),
          flags: field('fixed32', 6),
        },
      },
    },
  },
  Status: {
    fields: { message: field('string', 2), code: field('StatusCode', 3) },
    nested: { StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } } },
  },
};

const collector = {
  ExportTraceServiceRequest: {
    fields: { resourceSpans: field('opentelemetry.proto.trace.v1.ResourceSpans', 1, 'repeated') },
  },
  ExportTraceServiceResponse: { fields: { partialSuccess: field('ExportTracePartialSuccess', 1) } },
  ExportTracePartialSuccess: {
    fields: { rejectedSpans: field('int64', 1), errorMessage: field('string', 2) },
  },
};

export const OTLP_TRACE_SCHEMA: INamespace = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: { nested: { v1: { nested: common } } },
            resource: { nested: { v1: { nested: resource } } },
            trace: { nested: { v1: { nested: trace } } },
            collector: { nested: { trace: { nested: { v1: { nested: collector } } } } },
          },
        },
      },
    },
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: field('int32', 1),
                message: field('string', 2),
                details: field('google.protobuf.Any', 3, 'repeated'),
              },
            },
          },
        },
      },
    },
  },
};
