export { IngestService, type IngestOptions, type IngestStats, type IngestResult } from './ingest-service';
export {
  handleTraceExport,
  MAX_TRACE_BODY_BYTES,
  TOKEN_HEADER,
  TRACES_PATH,
  type TraceReceiverOptions,
} from './otlp-http';
export { otlpEnvLines } from './env-lines';
export { startTraceListener, type TraceListener } from './trace-listener';
export type { SpanBatch } from '../span-mapping/span';
export { TraceReceiver } from './trace-receiver';
