import { TOKEN_HEADER } from './otlp-http';

/**
 * The two lines a user pastes before an instrumented program so that any OpenTelemetry SDK's
 * standard OTLP/HTTP exporter sends to Fleetscope unchanged: the endpoint (the exporter adds
 * `/v1/traces`) and the token header. Header values are percent-encoded, as the OTel
 * environment variable specification (W3C Baggage format) says.
 */
export function otlpEnvLines(port: number, token: string): [string, string] {
  return [
    `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${port}`,
    `OTEL_EXPORTER_OTLP_HEADERS=${TOKEN_HEADER}=${encodeURIComponent(token)}`,
  ];
}
