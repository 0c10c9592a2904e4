import { describe, expect, it } from 'vitest';
import { ProviderError, ReplayModelClient } from '../../../src-main/llm';

const request = { model: 'replay', messages: [{ role: 'user' as const, content: 'hello' }] };

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('ReplayModelClient', () => {
  it('answers queued replies in order, streaming text in pieces, and records each request', async () => {
    const client = new ReplayModelClient([
      { type: 'text', content: 'first answer', chunkSize: 5, usage: { prompt: 3, completion: 2 } },
      { type: 'text', content: 'second' },
    ]);
    const pieces: string[] = [];
    const first = await client.complete(request, { onText: (text) => pieces.push(text) });
    expect(first).toEqual({
      content: 'first answer',
      toolCalls: [],
      usage: { prompt: 3, completion: 2 },
      finishReason: 'stop',
    });
    expect(pieces).toEqual(['first', ' answ', 'er']);
    const second = await client.complete({ ...request, model: 'other' });
    expect(second.content).toBe('second');
    expect(second.usage?.completion).toBeGreaterThan(0);
    expect(client.requests.map((sent) => sent.model)).toEqual(['replay', 'other']);
  });

  it('asks the responder once the queue is empty, with the request and its index', async () => {
    const client = new ReplayModelClient((sent, index) => ({
      type: 'text',
      content: `${index}: ${sent.messages.at(-1)?.content ?? ''}`,
    }));
    client.enqueue({ type: 'text', content: 'queued' });
    expect((await client.complete(request)).content).toBe('queued');
    expect((await client.complete(request)).content).toBe('1: hello');
  });

  it('returns tool calls and announces each one', async () => {
    const client = new ReplayModelClient([
      {
        type: 'tools',
        content: 'Let me check.',
        calls: [{ name: 'calculator', arguments: '{"expression":"1+1"}' }],
      },
    ]);
    const started: string[] = [];
    const result = await client.complete(request, { onToolCallStarted: (call) => started.push(call.name) });
    expect(result.toolCalls).toEqual([
      { id: 'call_1_1', name: 'calculator', arguments: '{"expression":"1+1"}' },
    ]);
    expect(result).toMatchObject({ content: 'Let me check.', finishReason: 'tool_calls' });
    expect(started).toEqual(['calculator']);
  });

  it('fails as scripted, keeping what streamed before the failure', async () => {
    const client = new ReplayModelClient([
      { type: 'error', code: 'disconnected', message: 'gone', partial: 'half a rep' },
    ]);
    const error = await failure(client.complete(request));
    expect(error).toMatchObject({ code: 'disconnected', message: 'gone' });
    expect(error.partial.content).toBe('half a rep');
  });

  it('says so when it runs out of replies instead of inventing one', async () => {
    const error = await failure(new ReplayModelClient().complete(request));
    expect(error.message).toContain('no reply left for request 1');
  });

  it('a hanging reply ends only when the call is aborted, as aborted with the partial text', async () => {
    const client = new ReplayModelClient([{ type: 'hang', content: 'thinking' }]);
    const controller = new AbortController();
    const pieces: string[] = [];
    const call = client.complete(request, { signal: controller.signal, onText: (text) => pieces.push(text) });
    await expect.poll(() => pieces.join('')).toBe('thinking');
    controller.abort();
    const error = await failure(call);
    expect(error.code).toBe('aborted');
    expect(error.partial.content).toBe('thinking');
  });

  it('serves every provider of a fleet through its factory', () => {
    const client = new ReplayModelClient();
    const factory = client.asFactory();
    expect(factory({ id: 'custom', model: 'a' })).toBe(client);
    expect(factory({ id: 'openai', model: 'b', apiKeyEnv: 'X' })).toBe(client);
  });
});
