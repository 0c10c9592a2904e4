import OpenAI from 'openai';
import type { ToolCall, TokenUsage } from '@shared/domain';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamOptions, ModelClient } from './model-client';
import {
  shapeOf,
  unfinishedStream,
  usageFromWire,
  wholeCompletion,
  type ErrorVoice,
  type WholeCompletion,
} from './openai-reply';
import { readEventStream } from './event-stream';
import { ProviderError, redact, type PartialOutput } from './provider-error';

export interface OpenAiClientOptions {
  /** Where every request goes; required, so the SDK never falls back to OPENAI_BASE_URL. */
  baseUrl: string;
  /** The key itself; callers read it from the environment variable the fleet names. */
  apiKey?: string;
  /** SDK retries for 429 and 5xx before streaming starts (default 2). */
  maxRetries?: number;
  /** Milliseconds without a byte from the provider before the call is given up (default 30 s). */
  idleTimeoutMs?: number;
  /** Label used in error sentences, e.g. the provider id. */
  providerLabel?: string;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * The SDK's form of a chat message. System, user and plain assistant messages already have it and
 * go as they are (a request carries the whole history: nothing is copied per message); tool calls
 * and tool results are renamed to the API's fields.
 */
function toOpenAiMessage(message: ChatMessage): OpenAiMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return message;
    case 'assistant':
      if (message.toolCalls && message.toolCalls.length > 0) {
        return {
          role: 'assistant',
          content: message.content.length > 0 ? message.content : null,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        };
      }
      return 'toolCalls' in message ? { role: 'assistant', content: message.content } : message;
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Whether the message must be renamed to the API's fields (see toOpenAiMessage). */
const needsRenaming = (message: ChatMessage): boolean =>
  message.role === 'tool' || (message.role === 'assistant' && 'toolCalls' in message);

function toRequestBody(request: ChatRequest): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  return {
    model: request.model,
    // Most requests carry only messages that go as they are: then the array goes as it is too.
    messages:
      request.plain !== true && request.messages.some(needsRenaming)
        ? request.messages.map(toOpenAiMessage)
        : (request.messages as OpenAiMessage[]),
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
  };
}

/** Accumulates streamed tool-call fragments by their index. */
class ToolCallAssembler {
  private readonly calls = new Map<number, ToolCall>();

  add(delta: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall): {
    started: boolean;
    call: ToolCall;
  } {
    const existing = this.calls.get(delta.index);
    const call = existing ?? { id: delta.id ?? `call_${delta.index}`, name: '', arguments: '' };
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
    this.calls.set(delta.index, call);
    return { started: existing === undefined, call };
  }

  list(): ToolCall[] {
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => ({ ...call }));
  }
}

/**
 * Every header OPENAI_CUSTOM_HEADERS names, set to null (the SDK then leaves it out), except
 * Authorization, set to the client's own key.
 */
function environmentHeadersRemoved(apiKey: string): Record<string, string | null> {
  const removed: Record<string, string | null> = {};
  for (const line of (process.env.OPENAI_CUSTOM_HEADERS ?? '').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    removed[name] = name.toLowerCase() === 'authorization' ? `Bearer ${apiKey}` : null;
  }
  return removed;
}

/**
 * A ModelClient over any OpenAI-compatible chat completions endpoint. It always asks for a stream
 * and also accepts one whole JSON completion from servers that ignore `stream`.
 */
export class OpenAiModelClient implements ModelClient {
  private readonly sdk: OpenAI;
  private readonly idleTimeoutMs: number;
  private readonly secrets: string[];
  private readonly label: string;

  constructor(options: OpenAiClientOptions) {
    this.sdk = new OpenAI({
      baseURL: options.baseUrl,
      // Local OpenAI-compatible servers need no key, but the SDK insists on a value.
      apiKey: options.apiKey ?? 'no-key',
      // Given explicitly so the SDK reads none of them from the environment: a key, an admin key
      // (sent as Authorization too), an organization or project goes only where the caller says.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      // OPENAI_CUSTOM_HEADERS in the environment would add headers to every request, after the
      // key's: each one it names is removed, and an Authorization it names is this key's again.
      defaultHeaders: environmentHeadersRemoved(options.apiKey ?? 'no-key'),
      maxRetries: options.maxRetries ?? 2,
      logLevel: 'off',
      timeout: 10 * 60_000,
    });
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.secrets = options.apiKey ? [options.apiKey] : [];
    this.label = options.providerLabel ?? 'the model provider';
  }

  async complete(request: ChatRequest, options: ChatStreamOptions = {}): Promise<ChatResult> {
    const controller = new AbortController();
    /**
     * Rejects the wait for the response's head. The SDK's retry backoff sleeps ignore the signal,
     * so without this a cancel during a 429 backoff would wait for the backoff to end.
     */
    let stopWaiting: ((error: Error) => void) | null = null;
    // Every abort goes through here (the caller's signal, the idle timer), so the wait for the
    // head needs no listener of its own on the controller's signal.
    const abort = () => {
      controller.abort();
      stopWaiting?.(new OpenAI.APIUserAbortError());
    };
    if (options.signal?.aborted) throw new ProviderError('aborted', 'The call was cancelled.');
    options.signal?.addEventListener('abort', abort, { once: true });

    let stalled = false;
    // One timer per call, not moved per chunk: each chunk only notes when it came, and a timer
    // that comes due while data still flows waits again for the rest of the quiet time.
    let lastDataAt = performance.now();
    let idleTimer: NodeJS.Timeout | undefined;
    const onIdleTimer = () => {
      const quiet = performance.now() - lastDataAt;
      if (quiet < this.idleTimeoutMs) {
        idleTimer = setTimeout(onIdleTimer, this.idleTimeoutMs - quiet);
        return;
      }
      stalled = true;
      abort();
    };

    let content = '';
    const tools = new ToolCallAssembler();
    let usage: TokenUsage | null = null;
    let finishReason: string | null = null;
    const partial = (): PartialOutput => ({ content, toolCalls: tools.list() });

    let chunks = 0;
    let choices = 0;
    const sentAt = performance.now();
    let firstTokenAt: number | null = null;
    let whole: WholeCompletion | null = null;
    idleTimer = setTimeout(onIdleTimer, this.idleTimeoutMs);
    try {
      const head = this.sdk.chat.completions
        .create(toRequestBody(request), { signal: controller.signal })
        .asResponse();
      const response = await new Promise<Response>((resolve, reject) => {
        stopWaiting = reject;
        head.then(resolve, (error: unknown) =>
          reject(error instanceof Error ? error : new Error(String(error))),
        );
      });
      stopWaiting = null;
      const contentType = response.headers.get('content-type');
      let sse: Response | null = shapeOf(contentType) === 'event-stream' ? response : null;
      if (sse === null) {
        // Not announced as a stream: read it whole and decide from the content type and its first bytes.
        const body = await response.text();
        const shape = shapeOf(contentType, body);
        if (shape === 'event-stream') sse = new Response(body, { headers: response.headers });
        else whole = wholeCompletion({ shape, contentType, body, status: response.status }, this.voice);
      }
      if (sse !== null) {
        await readEventStream(sse, controller.signal, (data) => {
          const chunk = data as ChatCompletionChunk;
          lastDataAt = performance.now();
          chunks += 1;
          if (chunk.usage) usage = usageFromWire(chunk.usage, chunk.model);
          const choice = chunk.choices?.[0];
          if (!choice) return;
          choices += 1;
          const text = choice.delta?.content;
          if (text) {
            if (firstTokenAt === null) firstTokenAt = performance.now();
            content += text;
            options.onText?.(text);
          }
          const toolDeltas = choice.delta?.tool_calls;
          if (toolDeltas) {
            if (firstTokenAt === null) firstTokenAt = performance.now();
            for (const delta of toolDeltas) {
              const { started, call } = tools.add(delta);
              if (started) options.onToolCallStarted?.({ index: delta.index, id: call.id, name: call.name });
            }
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        });
      }
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw this.classify(error, stalled, options.signal, partial());
    } finally {
      stopWaiting = null;
      clearTimeout(idleTimer);
      options.signal?.removeEventListener('abort', abort);
    }
    // An aborted stream ends quietly (as the SDK's does), so an abort shows up here, not as an exception.
    if (stalled || options.signal?.aborted) throw this.classify(null, stalled, options.signal, partial());
    const timed = (reported: TokenUsage | null, firstAt: number | null): TokenUsage | null =>
      reported && {
        ...reported,
        model: reported.model ?? request.model,
        ...(firstAt !== null ? { firstTokenMs: Math.round(firstAt - sentAt) } : {}),
        durationMs: Math.round(performance.now() - sentAt),
      };
    if (whole !== null) {
      // A whole reply's first token arrives with the rest of it.
      return this.deliverWhole({ ...whole, usage: timed(whole.usage, performance.now()) }, options);
    }
    if (finishReason === null) throw unfinishedStream(chunks, choices, partial(), this.voice);
    return { content, toolCalls: tools.list(), usage: timed(usage, firstTokenAt), finishReason };
  }

  /** Hands a whole reply to the listeners as one piece, as a stream of one chunk would. */
  private deliverWhole(whole: WholeCompletion, options: ChatStreamOptions): ChatResult {
    if (whole.content.length > 0) options.onText?.(whole.content);
    whole.toolCalls.forEach((call, index) =>
      options.onToolCallStarted?.({ index, id: call.id, name: call.name }),
    );
    return { ...whole };
  }

  private classify(
    error: unknown,
    stalled: boolean,
    signal: AbortSignal | undefined,
    partial: PartialOutput,
  ): ProviderError {
    const label = this.label;
    if (stalled) {
      const seconds = Math.round(this.idleTimeoutMs / 100) / 10;
      return new ProviderError(
        'stalled',
        `${label} stopped sending data for ${seconds} s, so the reply was cut off.`,
        partial,
      );
    }
    if (signal?.aborted) return new ProviderError('aborted', 'The call was cancelled.', partial);
    if (error instanceof OpenAI.APIUserAbortError)
      return new ProviderError('aborted', 'The call was cancelled.', partial);
    if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof OpenAI.APIConnectionError) {
      return new ProviderError(
        'connection',
        `Could not reach ${label}: ${this.clean(error.message)}.`,
        partial,
      );
    }
    if (error instanceof OpenAI.APIError) {
      const status = error.status ?? null;
      const detail = this.clean(error.message);
      if (status === 429) {
        return new ProviderError(
          'rate-limited',
          `${label} kept refusing with "too many requests" (429) after retrying: ${detail}`,
          partial,
          status,
        );
      }
      if (status !== null && status >= 500) {
        return new ProviderError(
          'server-error',
          `${label} had a server error (${status}) after retrying: ${detail}`,
          partial,
          status,
        );
      }
      if (status === 401 || status === 403) {
        return new ProviderError(
          'auth',
          `${label} rejected the API key (${status}). Check the key in the environment variable the fleet names.`,
          partial,
          status,
        );
      }
      if (status === null)
        return new ProviderError('server-error', `${label} reported an error mid-stream: ${detail}`, partial);
      return new ProviderError(
        'bad-request',
        `${label} rejected the request (${status}): ${detail}`,
        partial,
        status,
      );
    }
    if (error instanceof SyntaxError) {
      return new ProviderError(
        'malformed-stream',
        `${label} sent data that is not valid JSON, so the reply was cut off.`,
        partial,
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(
      'disconnected',
      `The connection to ${label} broke mid-reply (${this.clean(message)}).`,
      partial,
    );
  }

  private clean(text: string): string {
    return redact(text, this.secrets).replace(/\.$/, '');
  }

  /** How error sentences name the provider and keep its key out of quoted text. */
  private get voice(): ErrorVoice {
    return { label: this.label, clean: (text) => this.clean(text) };
  }
}
