import type { ServerResponse } from 'node:http';

/**
 * What the OpenAI-compatible stub (openai-stub.ts) can answer, and how each answer is written:
 * SSE chunks for streaming requests, one JSON completion otherwise, and the injectable faults.
 */

export interface StubToolCall {
  id?: string;
  name: string;
  /** Raw JSON text; streamed in fragments of `argumentChunkSize` characters. */
  arguments: string;
}

/**
 * The usage a reply reports: counts (cached and reasoning tokens as OpenAI nests them in
 * `prompt_tokens_details` / `completion_tokens_details`), or 'none' for a provider that reports no
 * usage at all (even when a stream asks for it).
 */
export type StubUsage = { prompt: number; completion: number; cached?: number; reasoning?: number } | 'none';

export type StubReply =
  | {
      type: 'text';
      content: string;
      /** Characters per SSE chunk (default 4). */
      chunkSize?: number;
      /** Milliseconds between chunks (default 0). */
      delayMs?: number;
      usage?: StubUsage;
      /** Answer with one JSON completion even when a stream was asked for (servers that ignore `stream`). */
      ignoreStream?: boolean;
    }
  | {
      type: 'tools';
      calls: StubToolCall[];
      /** Text streamed before the tool calls. */
      content?: string;
      argumentChunkSize?: number;
      usage?: StubUsage;
      ignoreStream?: boolean;
    }
  | { type: 'error'; status: number; message?: string; retryAfterMs?: number }
  /** Sends `content` (if any), then hangs until the client goes away. */
  | { type: 'stall'; content?: string }
  /** Sends `content` (if any), then destroys the socket. */
  | { type: 'disconnect'; content?: string }
  /** Sends `content` (if any), then a data line that is not JSON. */
  | { type: 'malformed'; content?: string }
  /** A web page with HTTP 200 (a wrong base URL, a captive portal or a proxy's login page). */
  | { type: 'html'; body?: string }
  /** A completion whose `choices` list is empty: every SSE chunk when streaming, else the JSON body. */
  | { type: 'empty-choices' }
  /** Any body with any status and content type, sent as is. */
  | { type: 'raw'; status?: number; contentType?: string; body: string };

export interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{
    role: string;
    content?: unknown;
    name?: string;
    tool_calls?: unknown;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
  return parts;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function promptTokens(body: ChatBody | null): number {
  return estimateTokens(JSON.stringify(body?.messages ?? []));
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const DEFAULT_HTML_PAGE =
  '<!doctype html><html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>';

/** Replies whose body is the same whether or not a stream was asked for; true when it was sent. */
function sendFixedBody(res: ServerResponse, reply: StubReply): boolean {
  if (reply.type === 'html') {
    const page = reply.body ?? DEFAULT_HTML_PAGE;
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(page),
    });
    res.end(page);
    return true;
  }
  if (reply.type === 'raw') {
    res.writeHead(reply.status ?? 200, {
      'content-type': reply.contentType ?? 'text/plain',
      'content-length': Buffer.byteLength(reply.body),
    });
    res.end(reply.body);
    return true;
  }
  return false;
}

function sendError(res: ServerResponse, reply: Extract<StubReply, { type: 'error' }>): void {
  const headers: Record<string, string> = {};
  // The SDK honours retry-after-ms, which keeps retry backoff short in tests.
  headers['retry-after-ms'] = String(reply.retryAfterMs ?? 5);
  const type = reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
  sendJson(res, reply.status, { error: { message: reply.message ?? `stub ${reply.status}`, type } }, headers);
}

export async function jsonReply(
  res: ServerResponse,
  id: string,
  body: ChatBody | null,
  reply: StubReply,
): Promise<void> {
  const model = body?.model ?? 'stub-model';
  if (sendFixedBody(res, reply)) return;
  switch (reply.type) {
    case 'html':
    case 'raw':
      return;
    case 'empty-choices':
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [],
        usage: { prompt_tokens: promptTokens(body), completion_tokens: 0, total_tokens: promptTokens(body) },
      });
      return;
    case 'error':
      sendError(res, reply);
      return;
    case 'stall':
      res.writeHead(200, { 'content-type': 'application/json' });
      return;
    case 'disconnect':
      res.destroy();
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "broken", ');
      return;
    case 'text':
    case 'tools': {
      const content = reply.type === 'text' ? reply.content : (reply.content ?? null);
      const toolCalls =
        reply.type === 'tools'
          ? reply.calls.map((call, index) => ({
              id: call.id ?? `call_${index + 1}`,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            }))
          : undefined;
      const usage = usageBody(reply.usage, body, content ?? JSON.stringify(toolCalls));
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              refusal: null,
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        ...(usage ? { usage } : {}),
      });
      return;
    }
  }
}

export async function streamReply(
  res: ServerResponse,
  id: string,
  body: ChatBody,
  reply: StubReply,
): Promise<void> {
  if (reply.type === 'error') {
    sendError(res, reply);
    return;
  }
  if (sendFixedBody(res, reply)) return;
  const model = body.model ?? 'stub-model';
  const created = Math.floor(Date.now() / 1000);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const send = (delta: Record<string, unknown>, finishReason: string | null = null) => {
    const chunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  const sendText = async (content: string, size: number, delayMs: number) => {
    for (const part of chunks(content, size)) {
      if (res.destroyed) return;
      send({ content: part });
      if (delayMs > 0) await sleep(delayMs);
    }
  };
  if (reply.type === 'empty-choices') {
    const empty = { id, object: 'chat.completion.chunk', created, model, choices: [] };
    res.write(`data: ${JSON.stringify(empty)}\n\n`);
    res.write(`data: ${JSON.stringify(empty)}\n\n`);
    sendUsage(res, id, created, model, body, { prompt: promptTokens(body), completion: 0 }, '');
    res.write('data: [DONE]\n\n');
    res.end();
    return;
  }
  send({ role: 'assistant', content: '' });

  switch (reply.type) {
    case 'stall':
      await sendText(reply.content ?? '', 4, 0);
      return; // never ends; the client's idle timeout or abort closes it
    case 'disconnect':
      await sendText(reply.content ?? '', 4, 0);
      // Give the partial content a moment on the wire, then break the connection.
      await sleep(5);
      res.destroy();
      return;
    case 'malformed':
      await sendText(reply.content ?? '', 4, 0);
      res.write('data: {"id": "broken", "choices": [\n\n');
      res.end();
      return;
    case 'text': {
      await sendText(reply.content, reply.chunkSize ?? 4, reply.delayMs ?? 0);
      send({}, 'stop');
      sendUsage(res, id, created, model, body, reply.usage, reply.content);
      break;
    }
    case 'html':
    case 'raw':
      return;
    case 'tools': {
      if (reply.content) await sendText(reply.content, 4, 0);
      const size = reply.argumentChunkSize ?? 8;
      reply.calls.forEach((call, index) => {
        const fragments = chunks(call.arguments, size);
        send({
          tool_calls: [
            {
              index,
              id: call.id ?? `call_${index + 1}`,
              type: 'function',
              function: { name: call.name, arguments: fragments[0] ?? '' },
            },
          ],
        });
        for (const fragment of fragments.slice(1)) {
          send({ tool_calls: [{ index, function: { arguments: fragment } }] });
        }
      });
      send({}, 'tool_calls');
      sendUsage(res, id, created, model, body, reply.usage, JSON.stringify(reply.calls));
      break;
    }
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

function sendUsage(
  res: ServerResponse,
  id: string,
  created: number,
  model: string,
  body: ChatBody,
  usage: StubUsage | undefined,
  output: string,
): void {
  if (!body.stream_options?.include_usage) return;
  const reported = usageBody(usage, body, output);
  if (!reported) return;
  const chunk = { id, object: 'chat.completion.chunk', created, model, choices: [], usage: reported };
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

/** The `usage` object of a reply as OpenAI writes it, or null for a provider that reports none. */
function usageBody(usage: StubUsage | undefined, body: ChatBody | null, output: string) {
  if (usage === 'none') return null;
  const prompt = usage?.prompt ?? promptTokens(body);
  const completion = usage?.completion ?? estimateTokens(output);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(usage?.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
    ...(usage?.reasoning !== undefined
      ? { completion_tokens_details: { reasoning_tokens: usage.reasoning } }
      : {}),
  };
}
