import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiModelClient, ProviderError, createModelClientFactory } from '../../../src-main/llm';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(null);
});

const request = { model: 'stub-model', messages: [{ role: 'user' as const, content: 'hello' }] };
const client = (options: { idleTimeoutMs?: number; maxRetries?: number; apiKey?: string } = {}) =>
  new OpenAiModelClient({ baseUrl: stub.baseUrl, maxRetries: 2, idleTimeoutMs: 2_000, ...options });

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('OpenAiModelClient', () => {
  it('streams text as it arrives and reports usage from the usage chunk', async () => {
    stub.enqueue({
      type: 'text',
      content: 'Hello there, friend',
      chunkSize: 5,
      usage: { prompt: 11, completion: 7 },
    });
    const deltas: string[] = [];
    const result = await client().complete(request, { onText: (text) => deltas.push(text) });
    expect(result.content).toBe('Hello there, friend');
    expect(deltas).toEqual(['Hello', ' ther', 'e, fr', 'iend']);
    // The model that answered and the call's timing (milliseconds from the request) come with it.
    expect(result.usage).toEqual({
      prompt: 11,
      completion: 7,
      model: 'stub-model',
      firstTokenMs: expect.any(Number),
      durationMs: expect.any(Number),
    });
    expect(result.usage?.firstTokenMs).toBeLessThanOrEqual(result.usage?.durationMs ?? -1);
    expect(result.finishReason).toBe('stop');
    const body = stub.chatRequests()[0]?.body;
    expect(body?.stream).toBe(true);
    expect(body?.stream_options?.include_usage).toBe(true);
  });

  it('assembles parallel tool calls from streamed argument fragments', async () => {
    stub.enqueue({
      type: 'tools',
      argumentChunkSize: 3,
      calls: [
        { id: 'a', name: 'calculator', arguments: '{"expression":"2+2"}' },
        { id: 'b', name: 'current_time', arguments: '{}' },
      ],
    });
    const started: string[] = [];
    const result = await client().complete(
      { ...request, tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object' } }] },
      { onToolCallStarted: (call) => started.push(call.name) },
    );
    expect(result.toolCalls).toEqual([
      { id: 'a', name: 'calculator', arguments: '{"expression":"2+2"}' },
      { id: 'b', name: 'current_time', arguments: '{}' },
    ]);
    expect(started).toEqual(['calculator', 'current_time']);
    expect(result.finishReason).toBe('tool_calls');
    expect(stub.chatRequests()[0]?.body?.tools?.[0]?.function.name).toBe('calculator');
  });

  it('retries 429 and 500 with the SDK and then succeeds', async () => {
    stub.enqueue(
      { type: 'error', status: 429 },
      { type: 'error', status: 500 },
      { type: 'text', content: 'finally' },
    );
    const result = await client({ maxRetries: 2 }).complete(request);
    expect(result.content).toBe('finally');
    expect(stub.chatRequests()).toHaveLength(3);
  });

  it('gives up on 429 after its retries with a readable sentence', async () => {
    stub.respondWith(() => ({ type: 'error', status: 429, message: 'slow down' }));
    const error = await failure(client({ maxRetries: 1 }).complete(request));
    expect(error.code).toBe('rate-limited');
    expect(error.message).toMatch(/too many requests/);
    expect(stub.chatRequests()).toHaveLength(2);
  });

  it('reports 500 after retries as a server error', async () => {
    stub.respondWith(() => ({ type: 'error', status: 503 }));
    const error = await failure(client({ maxRetries: 1 }).complete(request));
    expect(error.code).toBe('server-error');
    expect(error.status).toBe(503);
  });

  it('gives up on a stalled stream after the idle timeout and keeps what arrived', async () => {
    stub.enqueue({ type: 'stall', content: 'half a tho' });
    const started = Date.now();
    const error = await failure(client({ idleTimeoutMs: 150 }).complete(request));
    expect(error.code).toBe('stalled');
    expect(error.partial.content).toBe('half a tho');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toMatch(/stopped sending data/);
  });

  it('does not cut off a reply that keeps sending, however long it takes in all', async () => {
    // 20 pieces 40 ms apart: twice the idle timeout in all, each gap a tenth of it.
    const content = 'abcd'.repeat(20);
    stub.enqueue({ type: 'text', content, chunkSize: 4, delayMs: 40 });
    const pieces: string[] = [];
    const result = await client({ idleTimeoutMs: 400 }).complete(request, {
      onText: (text) => pieces.push(text),
    });
    expect(result.content).toBe(content);
    expect(pieces.length).toBeGreaterThanOrEqual(20);
  });

  it('reports a connection broken mid-stream as disconnected with the partial text', async () => {
    stub.enqueue({ type: 'disconnect', content: 'partial words' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('disconnected');
    expect(error.partial.content).toBe('partial words');
  });

  it('reports malformed SSE data', async () => {
    stub.enqueue({ type: 'malformed', content: 'abc' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('malformed-stream');
    expect(error.partial.content).toBe('abc');
  });

  // The bounds below are generous on purpose (latency figures live in test/bench/orchestrator.bench.ts):
  // each stub reply would hold the client for 5 s or more, so they only fail if the abort waited for it.
  it('aborts the HTTP request promptly on the signal', async () => {
    stub.enqueue({ type: 'stall', content: 'thinking' });
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = client({ idleTimeoutMs: 10_000 }).complete(request, {
      signal: controller.signal,
      onText: (text) => deltas.push(text),
    });
    await expect.poll(() => deltas.length, { timeout: 5_000, interval: 5 }).toBeGreaterThan(0);
    expect(stub.chatRequests()[0]?.abortedAt).toBeNull();
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(call);
    expect(error.code).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    // The stub saw the connection closed before its (never-ending) reply finished.
    await expect
      .poll(() => stub.chatRequests()[0]?.abortedAt ?? null, { timeout: 5_000, interval: 5 })
      .not.toBeNull();
    expect((stub.chatRequests()[0]?.abortedAt ?? Infinity) - abortedAt).toBeLessThan(1_000);
  });

  it('cancels promptly even while the SDK waits to retry a 429', async () => {
    stub.enqueue({ type: 'error', status: 429, retryAfterMs: 5_000 });
    const controller = new AbortController();
    const call = client({ maxRetries: 2 }).complete(request, { signal: controller.signal });
    await stub.waitForChatRequests(1);
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(call);
    expect(error.code).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(stub.chatRequests()).toHaveLength(1);
  });

  it('never puts the API key in an error message', async () => {
    const key = 'sk-test-SECRET-123456';
    stub.respondWith(() => ({ type: 'error', status: 401, message: `bad key ${key}` }));
    const error = await failure(client({ apiKey: key }).complete(request));
    expect(error.code).toBe('auth');
    expect(error.message).not.toContain(key);
    expect(stub.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('names the missing environment variable instead of calling the provider', () => {
    const factory = createModelClientFactory({ env: {} });
    expect(() => factory({ id: 'openai', model: 'gpt', apiKeyEnv: 'OPENAI_API_KEY' })).toThrow(
      /OPENAI_API_KEY is not set/,
    );
  });

  it('serves the model list to the SDK', async () => {
    const sdk = new OpenAI({ baseURL: stub.baseUrl, apiKey: 'x' });
    const models = await sdk.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['stub-model']);
  });
});
