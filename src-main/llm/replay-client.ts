import type { TokenUsage, ToolCall } from '@shared/domain';
import type { ChatRequest, ChatResult, ChatStreamOptions, ModelClient } from './model-client';
import { ProviderError, type ProviderErrorCode } from './provider-error';
import type { ModelClientFactory } from './providers';

/** One canned model answer. */
export type ReplayReply =
  | {
      type: 'text';
      content: string;
      /** Characters per streamed piece (default 8); each piece reaches `onText` separately. */
      chunkSize?: number;
      /** Default: estimated from the request and the reply (4 characters a token). */
      usage?: TokenUsage;
    }
  | {
      type: 'tools';
      calls: Array<{ id?: string; name: string; arguments: string }>;
      /** Text streamed before the calls. */
      content?: string;
      usage?: TokenUsage;
    }
  /** Streams `partial` (if any), then fails with `code`, as a provider failure would. */
  | { type: 'error'; code: Exclude<ProviderErrorCode, 'aborted'>; message?: string; partial?: string }
  /** Streams `content` (if any), then waits until the call is aborted (a model that never finishes). */
  | { type: 'hang'; content?: string };

/** Picks the reply for a request; `index` counts the client's calls from 0. */
export type ReplayResponder = (request: ChatRequest, index: number) => ReplayReply | Promise<ReplayReply>;

const DEFAULT_CHUNK_SIZE = 8;

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function pieces(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += step) parts.push(text.slice(index, index + step));
  return parts;
}

/** Lets other runs and turns interleave between streamed pieces, like network reads would. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A ModelClient that answers from canned replies, without HTTP: queued replies first, then the
 * responder. Used where the model's transport is not what is being tested (team patterns,
 * termination); the HTTP path is tested against the OpenAI-compatible stub server. Replies stream
 * through `onText` in pieces and honour the abort signal, so runs behave as with a real model.
 */
export class ReplayModelClient implements ModelClient {
  /** Every request received, in order (copies: later changes by the caller do not show). */
  readonly requests: ChatRequest[] = [];
  private readonly queue: ReplayReply[] = [];
  private responder: ReplayResponder | null;

  constructor(replies: readonly ReplayReply[] | ReplayResponder = []) {
    if (typeof replies === 'function') this.responder = replies;
    else {
      this.responder = null;
      this.queue.push(...replies);
    }
  }

  enqueue(...replies: ReplayReply[]): void {
    this.queue.push(...replies);
  }

  /** Answers every request the queue does not cover; null leaves only the queue. */
  respondWith(responder: ReplayResponder | null): void {
    this.responder = responder;
  }

  /** A factory that hands this client to every provider of a fleet (StartRunOptions.models). */
  asFactory(): ModelClientFactory {
    return () => this;
  }

  async complete(request: ChatRequest, options: ChatStreamOptions = {}): Promise<ChatResult> {
    const index = this.requests.length;
    this.requests.push(structuredClone(request));
    const signal = options.signal;
    const aborted = (content: string, toolCalls: ToolCall[] = []) =>
      new ProviderError('aborted', 'The call was cancelled.', { content, toolCalls });
    if (signal?.aborted) throw aborted('');
    const reply = this.queue.shift() ?? (this.responder ? await this.responder(request, index) : null);
    if (reply === null) {
      throw new ProviderError(
        'server-error',
        `The replay model client has no reply left for request ${index + 1} (model "${request.model}").`,
      );
    }
    let content = '';
    const stream = async (text: string, size: number) => {
      for (const piece of pieces(text, size)) {
        await yieldToEventLoop();
        if (signal?.aborted) throw aborted(content);
        content += piece;
        options.onText?.(piece);
      }
    };
    const prompt = estimateTokens(JSON.stringify(request.messages));
    switch (reply.type) {
      case 'text': {
        await stream(reply.content, reply.chunkSize ?? DEFAULT_CHUNK_SIZE);
        await yieldToEventLoop();
        if (signal?.aborted) throw aborted(content);
        const usage = reply.usage ?? { prompt, completion: estimateTokens(reply.content) };
        return { content, toolCalls: [], usage, finishReason: 'stop' };
      }
      case 'tools': {
        await stream(reply.content ?? '', DEFAULT_CHUNK_SIZE);
        const toolCalls = reply.calls.map((call, position) => ({
          id: call.id ?? `call_${index + 1}_${position + 1}`,
          name: call.name,
          arguments: call.arguments,
        }));
        for (const [position, call] of toolCalls.entries()) {
          await yieldToEventLoop();
          if (signal?.aborted) throw aborted(content, toolCalls.slice(0, position));
          options.onToolCallStarted?.({ index: position, id: call.id, name: call.name });
        }
        const usage = reply.usage ?? { prompt, completion: estimateTokens(JSON.stringify(reply.calls)) };
        return { content, toolCalls, usage, finishReason: 'tool_calls' };
      }
      case 'error':
        await stream(reply.partial ?? '', DEFAULT_CHUNK_SIZE);
        throw new ProviderError(
          reply.code,
          reply.message ?? `The replay model client failed as scripted (${reply.code}).`,
          { content, toolCalls: [] },
        );
      case 'hang':
        await stream(reply.content ?? '', DEFAULT_CHUNK_SIZE);
        await new Promise<void>((resolve) => {
          if (!signal) return; // never aborted: hangs for good, as a stalled model would without a timeout
          if (signal.aborted) return resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        throw aborted(content);
    }
  }
}
