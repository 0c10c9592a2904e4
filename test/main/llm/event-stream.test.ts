import fc from 'fast-check';
import OpenAI from 'openai';
import { Stream } from 'openai/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiModelClient, ProviderError } from '../../../src-main/llm';
import { readEventStream } from '../../../src-main/llm/event-stream';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

const sdk = new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1', logLevel: 'off' });

/** A response whose body arrives in the given pieces of `bytes` (as the network splits it). */
function responseOf(bytes: Uint8Array, cuts: number[]): Response {
  const ends = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        let from = 0;
        for (const end of [...ends, bytes.length]) {
          if (end > from) controller.enqueue(bytes.slice(from, end));
          from = Math.max(from, end);
        }
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

type Outcome = { data: unknown[]; error: string | null };

async function withOurs(bytes: Uint8Array, cuts: number[]): Promise<Outcome> {
  const data: unknown[] = [];
  try {
    await readEventStream(responseOf(bytes, cuts), new AbortController().signal, (item) => data.push(item));
    return { data, error: null };
  } catch (error) {
    return { data, error: (error as Error).constructor.name };
  }
}

async function withSdk(bytes: Uint8Array, cuts: number[]): Promise<Outcome> {
  const data: unknown[] = [];
  try {
    for await (const item of Stream.fromSSEResponse(responseOf(bytes, cuts), new AbortController(), sdk))
      data.push(item);
    return { data, error: null };
  } catch (error) {
    return { data, error: (error as Error).constructor.name };
  }
}

const chunk = (content: string, finish: string | null = null) =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  });

/** Wire forms a provider may send: line endings, comments, fields, multi-line data, errors, an unfinished tail. */
const WIRES: Record<string, string> = {
  plain: `data: ${chunk('Hé ')}\n\ndata: ${chunk('llo ✓', 'stop')}\n\ndata: [DONE]\n\n`,
  crlf: `data: ${chunk('one')}\r\n\r\ndata: ${chunk('two', 'stop')}\r\n\r\ndata: [DONE]\r\n\r\n`,
  cr: `data: ${chunk('one')}\r\rdata: [DONE]\r\r`,
  'comments and fields': `: keep-alive\n\nid: 7\nevent: message\nretry: 10\ndata: ${chunk('x')}\n\n:ping\n\ndata: [DONE]\n\n`,
  'no space after the colon': `data:${chunk('tight')}\n\ndata:[DONE]\n\n`,
  'data on two lines': `data: {"a":\ndata: 1}\n\ndata: [DONE]\n\n`,
  'after DONE': `data: ${chunk('a')}\n\ndata: [DONE]\n\ndata: ${chunk('ignored')}\n\n`,
  'unfinished last event': `data: ${chunk('a')}\n\ndata: ${chunk('dropped')}`,
  'error object': `data: ${chunk('a')}\n\ndata: {"error":{"message":"overloaded","type":"server_error"}}\n\n`,
  'error event': `event: error\ndata: {"error":{"message":"boom"}}\n\n`,
  'not JSON': `data: ${chunk('a')}\n\ndata: {nope\n\n`,
  'empty data': `data:\n\ndata: [DONE]\n\n`,
  'no events': `\n\n\n`,
};

describe('readEventStream reads an event stream as the SDK does', () => {
  for (const [name, wire] of Object.entries(WIRES)) {
    it(`${name}: the same data and the same error, however the body is split`, async () => {
      const bytes = new TextEncoder().encode(wire);
      const whole = await withSdk(bytes, []);
      expect(await withOurs(bytes, [])).toEqual(whole);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(bytes.length), { maxLength: 12 }), async (cuts) => {
          expect(await withOurs(bytes, cuts)).toEqual(await withSdk(bytes, cuts));
        }),
        { numRuns: 40 },
      );
    });
  }

  it('gives the first bytes of a split character and the rest as one character', async () => {
    const bytes = new TextEncoder().encode(`data: ${chunk('✓✓')}\n\n`);
    const at = bytes.indexOf(0xe2) + 1; // inside the first ✓
    const { data } = await withOurs(bytes, [at, at + 1, at + 3]);
    expect(data).toEqual([JSON.parse(chunk('✓✓'))]);
  });

  it('ends quietly when its signal cuts the read, and frees the body', async () => {
    const controller = new AbortController();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode(`data: ${chunk('a')}\n\n`));
        controller.signal.addEventListener('abort', () =>
          stream.error(new DOMException('aborted', 'AbortError')),
        );
      },
      cancel() {
        cancelled = true;
      },
    });
    const seen: unknown[] = [];
    const reading = readEventStream(new Response(body), controller.signal, (data) => {
      seen.push(data);
      controller.abort();
    });
    await expect(reading).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(cancelled).toBe(false); // an errored body needs no cancel; the read just ended
  });

  it('cancels the body of a reply it gives up on', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('data: {nope\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readEventStream(new Response(body), new AbortController().signal, () => {})).rejects.toThrow(
      SyntaxError,
    );
    expect(cancelled).toBe(true);
  });
});

describe('the model client over real HTTP with the wire forms providers send', () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());
  const client = () => new OpenAiModelClient({ baseUrl: stub.baseUrl, maxRetries: 0, idleTimeoutMs: 2_000 });
  const request = { model: 'stub-model', messages: [{ role: 'user' as const, content: 'hello' }] };

  it('streams a reply sent with CRLF line endings and keep-alive comments', async () => {
    stub.enqueue({
      type: 'raw',
      contentType: 'text/event-stream',
      body: WIRES['comments and fields']!.replace(
        'data: [DONE]',
        `data: ${chunk('!', 'stop')}\n\ndata: [DONE]`,
      ).replaceAll('\n', '\r\n'),
    });
    const pieces: string[] = [];
    const result = await client().complete(request, { onText: (text) => pieces.push(text) });
    expect(pieces).toEqual(['x', '!']);
    expect(result).toMatchObject({ content: 'x!', finishReason: 'stop' });
  });

  it('reports an error sent mid-stream as a server error, with the text so far', async () => {
    stub.enqueue({ type: 'raw', contentType: 'text/event-stream', body: WIRES['error object']! });
    const error = await client()
      .complete(request)
      .then(
        () => null,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('server-error');
    expect((error as ProviderError).message).toContain('overloaded');
    expect((error as ProviderError).partial.content).toBe('a');
  });
});
