import { z } from 'zod';
import type { TokenUsage, ToolCall } from '@shared/domain';
import { ProviderError, type PartialOutput } from './provider-error';

/**
 * Reading answers that are not the SSE stream the client asked for. Some OpenAI-compatible
 * servers ignore `stream: true` and send one JSON completion (accepted); a wrong base URL or a
 * captive proxy sends a web page; a broken server sends a completion without choices. Each gets
 * its own sentence instead of "the connection ended".
 */

/** Names the provider in error sentences and cleans quoted text (keys redacted, no final period). */
export interface ErrorVoice {
  label: string;
  clean(text: string): string;
}

/** How a 2xx response body is to be read, from its content type (and its first bytes when unsure). */
export type BodyShape = 'event-stream' | 'json' | 'html' | 'other';

export function shapeOf(contentType: string | null, body?: string): BodyShape {
  // What every streamed reply says, as is (the general reading below for every other spelling).
  if (contentType === 'text/event-stream') return 'event-stream';
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/event-stream') return 'event-stream';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (body === undefined) return 'other';
  const start = body.trimStart();
  if (/^(data|event|id|retry):/.test(start) || start.startsWith(':')) return 'event-stream';
  if (start.startsWith('{') || start.startsWith('[')) return 'json';
  if (start.startsWith('<')) return 'html';
  return 'other';
}

const completionSchema = z.object({
  choices: z.array(
    z.object({
      message: z
        .object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string(), arguments: z.string().nullish() }),
              }),
            )
            .nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  model: z.string().nullish(),
  usage: z
    .object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
      completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

/** The usage fields of an OpenAI reply (whole or a stream's usage chunk) the client reads. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * Our usage from the wire's: the token pair, cached and reasoning tokens where the provider
 * reports them (OpenAI nests them in `*_tokens_details`), and the model that answered.
 */
export function usageFromWire(wire: WireUsage, model: string | null | undefined): TokenUsage {
  const count = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const cached = count(wire.prompt_tokens_details?.cached_tokens);
  const reasoning = count(wire.completion_tokens_details?.reasoning_tokens);
  return {
    prompt: count(wire.prompt_tokens) ?? 0,
    completion: count(wire.completion_tokens) ?? 0,
    ...(cached !== undefined ? { cached } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(model ? { model: model.slice(0, 200) } : {}),
  };
}

const errorBodySchema = z.object({
  error: z.union([z.string(), z.object({ message: z.string().optional() }).passthrough()]),
});

/** A whole chat completion, read from a JSON body. */
export interface WholeCompletion {
  content: string;
  toolCalls: ToolCall[];
  usage: TokenUsage | null;
  finishReason: string;
}

/** Why a JSON body is no usable completion. */
export type JsonProblem =
  | { problem: 'invalid-json' }
  | { problem: 'error-body'; message: string }
  | { problem: 'no-choices' }
  | { problem: 'not-a-completion' };

export function readJsonCompletion(text: string): WholeCompletion | JsonProblem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'invalid-json' };
  }
  const failure = errorBodySchema.safeParse(value);
  if (failure.success) {
    const error = failure.data.error;
    return { problem: 'error-body', message: typeof error === 'string' ? error : (error.message ?? '') };
  }
  const parsed = completionSchema.safeParse(value);
  if (!parsed.success) return { problem: 'not-a-completion' };
  const choice = parsed.data.choices[0];
  if (!choice) return { problem: 'no-choices' };
  const toolCalls = (choice.message?.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.function.name,
    arguments: call.function.arguments ?? '',
  }));
  const usage = parsed.data.usage;
  return {
    content: choice.message?.content ?? '',
    toolCalls,
    usage: usage ? usageFromWire(usage, parsed.data.model) : null,
    finishReason: choice.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}

/** A short, single-line excerpt of a body for an error sentence. */
export function excerpt(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The `<title>` of an HTML page, if it has one. */
export function pageTitle(html: string): string | null {
  const match = /<title[^>]*>([^<]*)<\/title>/i.exec(html);
  const title = match?.[1] ? excerpt(match[1], 80) : '';
  return title.length > 0 ? title : null;
}

/** A server that ignored `stream: true` and answered with one JSON body; anything else is refused. */
export function wholeCompletion(
  {
    shape,
    contentType,
    body,
    status,
  }: { shape: BodyShape; contentType: string | null; body: string; status: number },
  voice: ErrorVoice,
): WholeCompletion {
  const label = voice.label;
  const type = contentType ?? 'no content type';
  switch (shape) {
    case 'html': {
      const title = pageTitle(body);
      throw new ProviderError(
        'unexpected-response',
        `${label} answered with a web page (HTTP ${status}, ${type}${title ? `, titled "${voice.clean(title)}"` : ''}) instead of a chat completion. Check the base URL: it must point at the OpenAI-compatible API, which usually ends in /v1.`,
      );
    }
    case 'other':
      throw new ProviderError(
        'unexpected-response',
        body.trim().length === 0
          ? `${label} answered HTTP ${status} with an empty body (${type}) instead of a chat completion.`
          : `${label} answered HTTP ${status} with ${type} instead of a chat completion: "${voice.clean(excerpt(body))}"`,
      );
    case 'event-stream':
    case 'json':
      break;
  }
  const read = readJsonCompletion(body);
  if (!('problem' in read)) return read;
  switch (read.problem) {
    case 'invalid-json':
      throw new ProviderError(
        'malformed-stream',
        `${label} answered with a body that is not valid JSON: "${voice.clean(excerpt(body))}"`,
      );
    case 'error-body':
      throw new ProviderError(
        'server-error',
        `${label} answered HTTP ${status} but reported an error: ${voice.clean(excerpt(read.message, 300)) || 'no message'}`,
      );
    case 'no-choices':
      throw new ProviderError(
        'empty-reply',
        `${label} answered with an empty "choices" list, so there is no reply from the model.`,
      );
    case 'not-a-completion':
      throw new ProviderError(
        'unexpected-response',
        `${label} answered with JSON that is not a chat completion: "${voice.clean(excerpt(body))}"`,
      );
  }
}

/** The stream ended without a finish reason: say whether anything usable had arrived. */
export function unfinishedStream(
  chunks: number,
  choices: number,
  partial: PartialOutput,
  voice: ErrorVoice,
): ProviderError {
  const label = voice.label;
  if (chunks === 0)
    return new ProviderError('disconnected', `${label} ended the stream without sending any data.`, partial);
  if (choices === 0) {
    return new ProviderError(
      'empty-reply',
      `${label} streamed ${chunks} chunk${chunks === 1 ? '' : 's'} with an empty "choices" list, so there is no reply from the model.`,
      partial,
    );
  }
  return new ProviderError(
    'disconnected',
    `The connection to ${label} ended before the model finished its reply.`,
    partial,
  );
}
