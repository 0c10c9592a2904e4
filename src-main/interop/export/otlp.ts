import type { RenderInput } from './render-types';
import { OtlpSpanMapper } from '../otlp-out/otlp-mapper';
import { attributes, type OtlpSpan } from '../otlp-out/otlp-span';

export const OTLP_SCOPE = { name: 'fleetscope.history.export', version: '1' } as const;

/** The resource every exported span carries: Fleetscope as the service, the session it is from. */
export function otlpResourceAttributes(sessionId: string): Record<string, string> {
  return { 'service.name': 'fleetscope', 'fleetscope.session.id': sessionId };
}

/** `otlpResourceAttributes` in OTLP/JSON. */
export function otlpResource(sessionId: string) {
  return attributes(otlpResourceAttributes(sessionId));
}

/**
 * OTLP/JSON following the OpenTelemetry GenAI semantic conventions (the mapping is
 * `OtlpSpanMapper`'s). Spans are written as they complete; unfinished tool calls and the root
 * span come last.
 */
export function* renderOtlp(input: RenderInput): Generator<string> {
  const { summary } = input;
  const mapper = new OtlpSpanMapper(summary, input.fleet);
  const resource = otlpResource(summary.id);
  yield `{"resourceSpans":[{"resource":{"attributes":${JSON.stringify(resource)}},"scopeSpans":[{"scope":${JSON.stringify(OTLP_SCOPE)},"spans":[`;
  let separator = '\n';
  const emit = (span: OtlpSpan): string => {
    const text = separator + JSON.stringify(span);
    separator = ',\n';
    return text;
  };
  for (const event of input.events) {
    const span = mapper.push(event);
    if (span) yield emit(span);
  }
  for (const span of mapper.unfinishedTools()) yield emit(span);
  yield emit(mapper.rootSpan());
  yield '\n]}]}]}\n';
}
