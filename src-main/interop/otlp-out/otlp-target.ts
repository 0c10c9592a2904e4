import { httpUrlSchema } from '@shared/domain';

/** Where live spans go and how: the OTLP/HTTP traces URL, extra headers, request timeout. */
export interface OtlpTarget {
  /** The full traces URL (`.../v1/traces`). */
  url: string;
  /** Sent with every request (authentication for a hosted collector, Fleetscope's token). */
  headers: Record<string, string>;
  /**
   * Milliseconds one export may take, its retries included (OTEL_EXPORTER_OTLP_TIMEOUT, default
   * 10 000).
   */
  timeoutMs: number;
  /** The body's encoding (OTEL_EXPORTER_OTLP_PROTOCOL; default protobuf, as the specification says). */
  protocol: OtlpProtocol;
  /** gzip bodies when OTEL_EXPORTER_OTLP_COMPRESSION says so. */
  gzip: boolean;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The OTLP exporter specification's default request timeout. */
export const DEFAULT_TIMEOUT_MS = 10_000;
const TRACES_PATH = '/v1/traces';
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Thrown for an endpoint or header setting that cannot be used; the message says why. */
export class OtlpTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpTargetError';
  }
}

/**
 * The traces URL for an endpoint as a person gives it. Like OTEL_EXPORTER_OTLP_ENDPOINT, a base
 * address gets `/v1/traces` appended (`http://localhost:4318` -> `http://localhost:4318/v1/traces`,
 * `https://cloud.langfuse.com/api/public/otel` -> `.../api/public/otel/v1/traces`); an address
 * that already ends in `/v1/traces` is used as it is. Only http and https are accepted.
 */
export function tracesUrl(endpoint: string): string {
  const checked = httpUrlSchema.safeParse(endpoint.trim());
  if (!checked.success) {
    throw new OtlpTargetError(
      `The OTLP endpoint must be an http:// or https:// address (like http://127.0.0.1:4318), got "${endpoint.slice(0, 200)}".`,
    );
  }
  const url = new URL(checked.data);
  if (url.username || url.password) {
    throw new OtlpTargetError(
      'The OTLP endpoint may not carry a user name or password; put credentials in OTEL_EXPORTER_OTLP_HEADERS.',
    );
  }
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(TRACES_PATH)) url.pathname = `${path}${TRACES_PATH}`;
  return url.toString();
}

/**
 * Headers in the form of the OpenTelemetry environment variables
 * (OTEL_EXPORTER_OTLP_HEADERS): `name=value` pairs separated by commas, values percent-encoded.
 * Entries that are not of that form are skipped and named in `problems` (never with their value).
 */
export function parseOtlpHeaders(text: string | undefined): {
  headers: Record<string, string>;
  problems: string[];
} {
  const headers: Record<string, string> = {};
  const problems: string[] = [];
  for (const [index, entry] of (text ?? '').split(',').entries()) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    const name = (equals < 0 ? entry : entry.slice(0, equals)).trim();
    if (equals < 0 || !HEADER_NAME.test(name)) {
      problems.push(`entry ${index + 1} is not name=value with a valid header name`);
      continue;
    }
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(equals + 1).trim());
    } catch {
      problems.push(`the value of "${name}" is not valid percent-encoding`);
      continue;
    }
    if (/[\r\n\0]/.test(value)) {
      problems.push(`the value of "${name}" holds a line break`);
      continue;
    }
    headers[name.toLowerCase()] = value;
  }
  return { headers, problems };
}

/** A timeout in milliseconds from the environment, or the default when unset or unusable. */
function timeoutFrom(env: NodeJS.ProcessEnv): number {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT']) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw);
    if (Number.isFinite(value) && value > 0) return Math.min(value, 600_000);
  }
  return DEFAULT_TIMEOUT_MS;
}

/** A standard OTLP exporter variable, the traces-specific one first; undefined when unset. */
function otlpSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const key of [`OTEL_EXPORTER_OTLP_TRACES_${name}`, `OTEL_EXPORTER_OTLP_${name}`]) {
    const value = env[key]?.trim().toLowerCase();
    if (value) return value;
  }
  return undefined;
}

/** The protocol and compression the environment asks for, and what of it cannot be done. */
function encodingFrom(env: NodeJS.ProcessEnv): { protocol: OtlpProtocol; gzip: boolean; problems: string[] } {
  const problems: string[] = [];
  const asked = otlpSetting(env, 'PROTOCOL');
  let protocol: OtlpProtocol = 'http/protobuf';
  if (asked === 'http/json') protocol = 'http/json';
  else if (asked !== undefined && asked !== 'http/protobuf')
    problems.push(
      `OTEL_EXPORTER_OTLP_PROTOCOL "${asked.slice(0, 40)}" is not sent over HTTP; http/protobuf is used`,
    );
  const compression = otlpSetting(env, 'COMPRESSION');
  if (compression !== undefined && compression !== 'gzip' && compression !== 'none')
    problems.push(
      `OTEL_EXPORTER_OTLP_COMPRESSION "${compression.slice(0, 40)}" is unknown; bodies are not compressed`,
    );
  return { protocol, gzip: compression === 'gzip', problems };
}

/**
 * The target for an endpoint, with headers, timeout, protocol and compression from the standard
 * OpenTelemetry environment variables (the traces-specific ones win), so the lines `fleetscope
 * serve` prints, or a hosted collector's documented settings, work unchanged.
 */
export function otlpTarget(
  endpoint: string,
  env: NodeJS.ProcessEnv,
): { target: OtlpTarget; problems: string[] } {
  const url = tracesUrl(endpoint);
  const general = parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS);
  const traces = parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS);
  const { protocol, gzip, problems } = encodingFrom(env);
  return {
    target: {
      url,
      headers: { ...general.headers, ...traces.headers },
      timeoutMs: timeoutFrom(env),
      protocol,
      gzip,
    },
    problems: [
      ...general.problems.map((problem) => `OTEL_EXPORTER_OTLP_HEADERS: ${problem}; that header is not sent`),
      ...traces.problems.map(
        (problem) => `OTEL_EXPORTER_OTLP_TRACES_HEADERS: ${problem}; that header is not sent`,
      ),
      ...problems,
    ],
  };
}
