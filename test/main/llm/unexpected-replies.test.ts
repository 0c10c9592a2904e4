import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiModelClient, ProviderError } from '../../../src-main/llm';
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
const client = (apiKey?: string) =>
  new OpenAiModelClient({
    baseUrl: stub.baseUrl,
    maxRetries: 0,
    idleTimeoutMs: 2_000,
    providerLabel: 'provider "local"',
    ...(apiKey ? { apiKey } : {}),
  });

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('answers that are not the stream that was asked for', () => {
  it('accepts a whole JSON completion from a server that ignores `stream`, as one piece', async () => {
    stub.enqueue({
      type: 'text',
      content: 'All in one go.',
      ignoreStream: true,
      usage: { prompt: 9, completion: 4 },
    });
    const deltas: string[] = [];
    const result = await client().complete(request, { onText: (text) => deltas.push(text) });
    expect(stub.chatRequests()[0]?.body?.stream).toBe(true);
    expect(result).toEqual({
      content: 'All in one go.',
      toolCalls: [],
      usage: {
        prompt: 9,
        completion: 4,
        model: 'stub-model',
        firstTokenMs: expect.any(Number),
        durationMs: expect.any(Number),
      },
      finishReason: 'stop',
    });
    expect(deltas).toEqual(['All in one go.']);
  });

  it('accepts tool calls in a whole JSON completion', async () => {
    stub.enqueue({
      type: 'tools',
      ignoreStream: true,
      calls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }],
    });
    const started: string[] = [];
    const result = await client().complete(request, {
      onToolCallStarted: (call) => started.push(`${call.id}:${call.name}`),
    });
    expect(result.toolCalls).toEqual([{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }]);
    expect(result.finishReason).toBe('tool_calls');
    expect(started).toEqual(['c1:calculator']);
  });

  it('says a 200 web page is a web page, with its title and a hint about the base URL', async () => {
    stub.enqueue({ type: 'html' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('unexpected-response');
    expect(error.message).toContain('provider "local" answered with a web page (HTTP 200, text/html');
    expect(error.message).toContain('titled "Welcome to nginx!"');
    expect(error.message).toContain('base URL');
    expect(error.message).not.toMatch(/connection/i);
  });

  it('recognises a web page sent without a content type from its first bytes', async () => {
    stub.enqueue({ type: 'raw', contentType: '', body: '<html><head><title>Login</title></head></html>' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('unexpected-response');
    expect(error.message).toContain('titled "Login"');
  });

  it('says an empty `choices` list in a JSON body is an empty reply', async () => {
    stub.enqueue({ type: 'raw', contentType: 'application/json', body: '{"id":"x","choices":[]}' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('empty-reply');
    expect(error.message).toBe(
      'provider "local" answered with an empty "choices" list, so there is no reply from the model.',
    );
  });

  it('says a stream whose chunks all have empty `choices` is an empty reply', async () => {
    stub.enqueue({ type: 'empty-choices' });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('empty-reply');
    expect(error.message).toMatch(/streamed \d+ chunks with an empty "choices" list/);
  });

  it('reports a 200 JSON error body with its message', async () => {
    stub.enqueue({
      type: 'raw',
      contentType: 'application/json',
      body: '{"error":{"message":"model stub-model is not loaded"}}',
    });
    const error = await failure(client().complete(request));
    expect(error.code).toBe('server-error');
    expect(error.message).toContain('reported an error: model stub-model is not loaded');
  });

  it('quotes plain text and foreign JSON instead of blaming the connection', async () => {
    stub.enqueue(
      { type: 'raw', contentType: 'text/plain', body: 'Service starting, try again later' },
      { type: 'raw', contentType: 'application/json', body: '{"status":"ok"}' },
      { type: 'raw', contentType: 'application/json', body: '{"choices": [' },
    );
    const plain = await failure(client().complete(request));
    expect(plain.code).toBe('unexpected-response');
    expect(plain.message).toContain(
      'with text/plain instead of a chat completion: "Service starting, try again later"',
    );
    const foreign = await failure(client().complete(request));
    expect(foreign.code).toBe('unexpected-response');
    expect(foreign.message).toContain('JSON that is not a chat completion: "{"status":"ok"}"');
    const broken = await failure(client().complete(request));
    expect(broken.code).toBe('malformed-stream');
    expect(broken.message).toContain('not valid JSON');
  });

  it('reads an event stream sent with the wrong content type', async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    stub.enqueue({
      type: 'raw',
      contentType: 'text/plain',
      body: `${chunk({ content: 'Hel' })}${chunk({ content: 'lo' })}${chunk({}, 'stop')}data: [DONE]\n\n`,
    });
    const result = await client().complete(request);
    expect(result).toMatchObject({ content: 'Hello', finishReason: 'stop' });
  });

  it('never quotes the API key from an unexpected body', async () => {
    const key = 'sk-test-ECHOED-0123456789';
    stub.enqueue({ type: 'raw', contentType: 'text/plain', body: `unauthorised key ${key}` });
    const error = await failure(client(key).complete(request));
    expect(error.code).toBe('unexpected-response');
    expect(error.message).not.toContain(key);
    expect(error.message).toContain('[redacted]');
  });
});
