import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeStatus,
  decodeTraceResponse,
  encodeTraceRequest,
} from '../../../src-main/interop/otlp-in/otlp-codec';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

let running: RunningHost;
beforeAll(async () => {
  running = await startTestHost();
});
afterAll(async () => {
  await running.stop();
});

interface Answer {
  status: number;
  type: string;
  body: Buffer;
}

/** One raw HTTP request to the receiver (fetch would not let a test send a wrong Host). */
function post(
  body: Buffer | string,
  headers: Record<string, string | number>,
  options: { method?: string; path?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: running.host.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/v1/traces',
        headers: { 'x-fleetscope-token': running.host.token, ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const PROTO = { 'Content-Type': 'application/x-protobuf' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const hex = (byte: number, bytes: number) => byte.toString(16).padStart(2, '0').repeat(bytes);

/** An OTLP/JSON request with one chat span per entry; times in epoch ms. */
function request(
  spans: Array<{ id: number; start: number; end: number; attributes?: Record<string, string> }>,
) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bad-input' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: spans.map((span) => ({
              traceId: hex(span.id, 16),
              spanId: hex(span.id, 8),
              name: 'chat',
              kind: 3,
              startTimeUnixNano: String(BigInt(Math.round(span.start)) * 1_000_000n),
              endTimeUnixNano: String(BigInt(Math.round(span.end)) * 1_000_000n),
              attributes: Object.entries({
                'gen_ai.operation.name': 'chat',
                'gen_ai.agent.name': 'probe',
                'gen_ai.output.messages': JSON.stringify([
                  { role: 'assistant', parts: [{ type: 'text', content: `answer ${span.id}` }] },
                ]),
                ...span.attributes,
              }).map(([key, value]) => ({ key, value: { stringValue: value } })),
            })),
          },
        ],
      },
    ],
  };
}

function traceSessionCount(): number {
  return running.app.store.listSessions({}).items.filter((item) => item.source === 'otlp').length;
}

/** The host still answers the app's own channels and a good export after each refusal. */
async function hostUnaffected(): Promise<void> {
  await expect(running.app.call('app.info', {})).resolves.toMatchObject({ surface: 'browser' });
  const page = await fetch(`http://127.0.0.1:${running.host.port}/?token=${running.host.token}`);
  expect(page.status).toBe(200);
}

describe('the OTLP receiver refuses bad input with OTLP status codes, storing nothing', () => {
  const now = Date.now();

  it('malformed protobuf: 400 with a protobuf google.rpc.Status', async () => {
    const answer = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]), PROTO);
    expect(answer.status).toBe(400);
    expect(answer.type).toBe('application/x-protobuf');
    const status = decodeStatus(answer.body);
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/^Malformed trace export/);
    expect(traceSessionCount()).toBe(0);
    await hostUnaffected();
  });

  it('malformed JSON and JSON that is not a trace export: 400 with a JSON status', async () => {
    const broken = await post('{"resourceSpans": [', JSON_TYPE);
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body.toString())).toMatchObject({
      code: 3,
      message: expect.stringContaining('not JSON'),
    });
    const shape = await post(JSON.stringify({ resourceSpans: 'all of them' }), JSON_TYPE);
    expect(shape.status).toBe(400);
    expect(JSON.parse(shape.body.toString()).message).toContain('$.resourceSpans must be a list');
    expect(traceSessionCount()).toBe(0);
    await hostUnaffected();
  });

  it('wrong content types and encodings: 415', async () => {
    const body = JSON.stringify(request([{ id: 1, start: now - 2000, end: now - 1000 }]));
    expect((await post(body, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post(body, {})).status).toBe(415);
    expect((await post(body, { ...JSON_TYPE, 'Content-Encoding': 'br' })).status).toBe(415);
    expect(traceSessionCount()).toBe(0);
  });

  it('a missing token is 401, a wrong one 403, the page token in the query is not accepted', async () => {
    const body = JSON.stringify(request([{ id: 2, start: now - 2000, end: now - 1000 }]));
    const missing = await post(body, { ...JSON_TYPE, 'x-fleetscope-token': '' });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body.toString()).code).toBe(16);
    expect((await post(body, { ...JSON_TYPE, 'x-fleetscope-token': 'guess' })).status).toBe(403);
    const viaQuery = await post(
      body,
      { ...JSON_TYPE, 'x-fleetscope-token': '' },
      { path: `/v1/traces?token=${running.host.token}` },
    );
    expect(viaQuery.status).toBe(401);
    expect((await post(body, { ...JSON_TYPE, Host: 'evil.example:80' })).status).toBe(403);
    expect((await post(body, { ...JSON_TYPE, Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post('', {}, { method: 'GET' })).status).toBe(405);
    expect(traceSessionCount()).toBe(0);
  });

  it('oversized bodies, plain or as a gzip bomb: 413', async () => {
    const big = Buffer.alloc(33 * 1024 * 1024, 0x20);
    const plain = await post(big, JSON_TYPE);
    expect(plain.status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const inflated = await post(bomb, { ...JSON_TYPE, 'Content-Encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    expect(JSON.parse(inflated.body.toString()).message).toContain('decompressed');
    expect(traceSessionCount()).toBe(0);
    await hostUnaffected();
  });

  it('spans with absurd timestamps or huge attributes: 400 naming the problem, nothing stored', async () => {
    const epoch = await post(JSON.stringify(request([{ id: 3, start: 5, end: 10 }])), JSON_TYPE);
    expect(epoch.status).toBe(400);
    expect(JSON.parse(epoch.body.toString()).message).toMatch(/start time 1970-01-01.* is outside/);
    const future = await post(
      JSON.stringify(request([{ id: 4, start: now + 400 * 86_400_000, end: now + 400 * 86_400_000 }])),
      JSON_TYPE,
    );
    expect(future.status).toBe(400);
    const backwards = await post(
      JSON.stringify(request([{ id: 5, start: now - 1000, end: now - 5000 }])),
      JSON_TYPE,
    );
    expect(JSON.parse(backwards.body.toString()).message).toContain('ends before it starts');
    const huge = encodeTraceRequest(
      request([
        { id: 6, start: now - 2000, end: now - 1000, attributes: { note: 'x'.repeat(5 * 1024 * 1024) } },
      ]),
    );
    const tooBig = await post(Buffer.from(huge), PROTO);
    expect(tooBig.status).toBe(400);
    expect(decodeStatus(tooBig.body).message).toMatch(/attribute "note" holds 5242880 characters/);
    expect(traceSessionCount()).toBe(0);
    await hostUnaffected();
  });

  it('a request with some unusable spans: 200 with partial_success, the good spans stored', async () => {
    const mixed = encodeTraceRequest(
      request([
        { id: 7, start: now - 3000, end: now - 2000 },
        { id: 8, start: 1, end: 2 },
      ]),
    );
    const answer = await post(Buffer.from(gzipSync(mixed)), { ...PROTO, 'Content-Encoding': 'gzip' });
    expect(answer.status).toBe(200);
    const response = decodeTraceResponse(answer.body);
    expect(response.partialSuccess?.rejectedSpans).toBe('1');
    expect(response.partialSuccess?.errorMessage).toMatch(/1 span rejected: span "chat".*start time/);
    expect(traceSessionCount()).toBe(1);
    const json = await post(
      JSON.stringify(request([{ id: 9, start: now - 3000, end: now - 2000 }])),
      JSON_TYPE,
    );
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body.toString())).toEqual({});
  });

  it('a span sent twice (an exporter retrying) is stored once', async () => {
    const body = JSON.stringify(request([{ id: 10, start: now - 3000, end: now - 2000 }]));
    expect((await post(body, JSON_TYPE)).status).toBe(200);
    expect((await post(body, JSON_TYPE)).status).toBe(200);
    // Ends the live sessions, so an answer still held for its addressee is written.
    running.app.traces.ingest.flush();
    const session = running.app.store
      .listSessions({})
      .items.find(
        (item) =>
          item.source === 'otlp' &&
          item.title !== '' &&
          [...running.app.store.iterateEvents(item.id)].some(
            (e) => e.kind === 'message.completed' && e.payload.message.content === 'answer 10',
          ),
      );
    expect(session).toBeDefined();
    const answers = [...running.app.store.iterateEvents(session?.id ?? '')].filter(
      (e) => e.kind === 'message.completed' && e.payload.message.content === 'answer 10',
    );
    expect(answers).toHaveLength(1);
  });
});
