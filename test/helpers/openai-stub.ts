import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks. It speaks
 * `POST /v1/chat/completions` (JSON or SSE with `stream: true`, usage chunk when
 * `stream_options.include_usage` is set, tool calls with argument fragments) and
 * `GET /v1/models`, and can inject faults. Replies are scripted per request: queued replies are
 * used first, then the responder function, then a default text reply.
 */

export interface StubToolCall {
  id?: string;
  name: string;
  /** Raw JSON text; streamed in fragments of `argumentChunkSize` characters. */
  arguments: string;
}

export type StubReply =
  | {
      type: 'text';
      content: string;
      /** Characters per SSE chunk (default 4). */
      chunkSize?: number;
      /** Milliseconds between chunks (default 0). */
      delayMs?: number;
      usage?: { prompt: number; completion: number };
    }
  | {
      type: 'tools';
      calls: StubToolCall[];
      /** Text streamed before the tool calls. */
      content?: string;
      argumentChunkSize?: number;
      usage?: { prompt: number; completion: number };
    }
  | { type: 'error'; status: number; message?: string; retryAfterMs?: number }
  /** Sends `content` (if any), then hangs until the client goes away. */
  | { type: 'stall'; content?: string }
  /** Sends `content` (if any), then destroys the socket. */
  | { type: 'disconnect'; content?: string }
  /** Sends `content` (if any), then a data line that is not JSON. */
  | { type: 'malformed'; content?: string };

export interface StubRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (chat completions) or null. */
  body: ChatBody | null;
  /** Epoch ms when the request arrived. */
  receivedAt: number;
  /** Epoch ms when the client closed the connection before the reply was finished. */
  abortedAt: number | null;
}

/** The part of a chat completions request body the stub looks at. */
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

export type StubResponder = (request: StubRequest) => StubReply | Promise<StubReply>;

export interface OpenAiStub {
  /** Base URL including `/v1`, as the `openai` SDK expects. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: StubRequest[];
  /** Chat completion requests only. */
  chatRequests(): StubRequest[];
  enqueue(...replies: StubReply[]): void;
  respondWith(responder: StubResponder | null): void;
  /** Resolves when `count` chat requests have arrived. */
  waitForChatRequests(count: number): Promise<void>;
  close(): Promise<void>;
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

export async function startOpenAiStub(): Promise<OpenAiStub> {
  const requests: StubRequest[] = [];
  const queue: StubReply[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let responder: StubResponder | null = null;
  let completionCounter = 0;

  const chatRequests = () => requests.filter((request) => request.path.endsWith('/chat/completions'));
  const notifyWaiters = () => {
    const count = chatRequests().length;
    for (const waiter of [...waiters]) {
      if (count >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: ChatBody | null = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw) as ChatBody;
      } catch {
        body = null;
      }
    }
    const record: StubRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      receivedAt: Date.now(),
      abortedAt: null,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.abortedAt = Date.now();
    });

    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'stub-model', object: 'model', created: 0, owned_by: 'stub' }],
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, { error: { message: `No route ${req.method} ${path}`, type: 'not_found' } });
      return;
    }
    notifyWaiters();
    const reply = queue.shift() ?? (responder ? await responder(record) : defaultReply());
    completionCounter += 1;
    const id = `chatcmpl-stub-${completionCounter}`;
    if (body?.stream) await streamReply(res, id, body, reply);
    else await jsonReply(res, id, body, reply);
  }

  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await listening;
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests,
    enqueue: (...replies) => queue.push(...replies),
    respondWith: (next) => {
      responder = next;
    },
    waitForChatRequests: (count) =>
      new Promise<void>((resolve) => {
        waiters.push({ count, resolve });
        notifyWaiters();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function defaultReply(): StubReply {
  return { type: 'text', content: 'ok' };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(
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

function sendError(res: ServerResponse, reply: Extract<StubReply, { type: 'error' }>): void {
  const headers: Record<string, string> = {};
  // The SDK honours retry-after-ms, which keeps retry backoff short in tests.
  headers['retry-after-ms'] = String(reply.retryAfterMs ?? 5);
  const type = reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
  sendJson(res, reply.status, { error: { message: reply.message ?? `stub ${reply.status}`, type } }, headers);
}

async function jsonReply(
  res: ServerResponse,
  id: string,
  body: ChatBody | null,
  reply: StubReply,
): Promise<void> {
  const model = body?.model ?? 'stub-model';
  switch (reply.type) {
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
      const completion = reply.usage?.completion ?? estimateTokens(content ?? JSON.stringify(toolCalls));
      const prompt = reply.usage?.prompt ?? promptTokens(body);
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
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      });
      return;
    }
  }
}

async function streamReply(res: ServerResponse, id: string, body: ChatBody, reply: StubReply): Promise<void> {
  if (reply.type === 'error') {
    sendError(res, reply);
    return;
  }
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
  usage: { prompt: number; completion: number } | undefined,
  output: string,
): void {
  if (!body.stream_options?.include_usage) return;
  const prompt = usage?.prompt ?? promptTokens(body);
  const completion = usage?.completion ?? estimateTokens(output);
  const chunk = {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}
