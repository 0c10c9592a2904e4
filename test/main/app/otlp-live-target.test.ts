import { describe, expect, it } from 'vitest';
import { OtlpTargetError, otlpTarget, parseOtlpHeaders, tracesUrl } from '../../../src-main/interop/otlp-out';

describe('the live export target', () => {
  it.each([
    ['http://127.0.0.1:4318', 'http://127.0.0.1:4318/v1/traces'],
    ['http://127.0.0.1:4318/', 'http://127.0.0.1:4318/v1/traces'],
    ['http://localhost:6006/v1/traces', 'http://localhost:6006/v1/traces'],
    ['https://cloud.langfuse.com/api/public/otel', 'https://cloud.langfuse.com/api/public/otel/v1/traces'],
    ['  https://collector.example/otlp//  ', 'https://collector.example/otlp/v1/traces'],
    ['http://127.0.0.1:4318/v1/traces?tenant=a#x', 'http://127.0.0.1:4318/v1/traces?tenant=a'],
  ])('%s sends to %s', (endpoint, url) => {
    expect(tracesUrl(endpoint)).toBe(url);
  });

  it.each([
    'ftp://collector.example',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'collector.example:4318',
    '',
    'http://user:secret@collector.example',
    `http://collector.example/${'a'.repeat(3000)}`,
  ])('refuses %j with a message that says what is wanted', (endpoint) => {
    expect(() => tracesUrl(endpoint)).toThrow(OtlpTargetError);
    expect(() => tracesUrl(endpoint)).toThrow(/OTLP endpoint/);
  });

  it('reads headers as the OpenTelemetry environment variables write them', () => {
    expect(parseOtlpHeaders('Authorization=Basic%20cGs6c2s%3D, x-fleetscope-token=abc').headers).toEqual({
      authorization: 'Basic cGs6c2s=',
      'x-fleetscope-token': 'abc',
    });
    const bad = parseOtlpHeaders('novalue,bad name=1,ok=1,worse=%zz,evil=a%0d%0aset-cookie:1');
    expect(bad.headers).toEqual({ ok: '1' });
    expect(bad.problems).toHaveLength(4);
    // A problem never repeats a header value.
    expect(bad.problems.join(' ')).not.toMatch(/set-cookie/);
  });

  it('traces-specific variables win over the general ones; the timeout comes from the environment', () => {
    const { target, problems } = otlpTarget('http://127.0.0.1:9', {
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=3',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
    });
    expect(target).toEqual({
      url: 'http://127.0.0.1:9/v1/traces',
      headers: { a: '1', b: '3' },
      timeoutMs: 2500,
      protocol: 'http/protobuf',
      gzip: false,
    });
    expect(problems).toEqual([]);
    expect(otlpTarget('http://127.0.0.1:9', { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }).target.timeoutMs).toBe(
      10_000,
    );
  });

  it('reads the protocol and compression as every OpenTelemetry exporter does', () => {
    expect(otlpTarget('http://127.0.0.1:9', {}).target).toMatchObject({
      protocol: 'http/protobuf',
      gzip: false,
    });
    const json = otlpTarget('http://127.0.0.1:9', {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    expect(json.target).toMatchObject({ protocol: 'http/json', gzip: true });
    expect(json.problems).toEqual([]);
    const grpc = otlpTarget('http://127.0.0.1:9', {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd',
    });
    expect(grpc.target).toMatchObject({ protocol: 'http/protobuf', gzip: false });
    expect(grpc.problems).toEqual([
      expect.stringContaining('"grpc" is not sent over HTTP'),
      expect.stringContaining('"zstd" is unknown'),
    ]);
  });
});
