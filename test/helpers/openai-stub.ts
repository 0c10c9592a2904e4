import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { jsonReply, sendJson, streamReply, type ChatBody, type StubReply } from './openai-stub-replies';

export type { ChatBody, StubReply, StubToolCall } from './openai-stub-replies';

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

/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks. It speaks
 * `POST /v1/chat/completions` (JSON or SSE with `stream: true`, usage chunk when
 * `stream_options.include_usage` is set, tool calls with argument fragments) and
 * `GET /v1/models`, and can inject faults. Replies are scripted per request: queued replies are
 * used first, then the responder function, then a default text reply. `port` 0 (default) picks
 * a free one; `npm run stub` starts it on a fixed port for the examples.
 */
export async function startOpenAiStub(options: { port?: number } = {}): Promise<OpenAiStub> {
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
    const wantsStream = body?.stream === true && !('ignoreStream' in reply && reply.ignoreStream === true);
    if (wantsStream && body) await streamReply(res, id, body, reply);
    else await jsonReply(res, id, body, reply);
  }

  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
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
