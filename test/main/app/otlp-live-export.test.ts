import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FleetInput, Message, RunEvent } from '../../../src-shared/domain';
import { silentLogger } from '../../../src-shared/logger';
import { createApp, OtlpLiveExport, type FleetscopeApp, type RunHandle } from '../../../src-main/app';
import { fleet, llm, scripted } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import {
  attr,
  startOtlpCollector,
  type OtlpCollector,
  type ReceivedSpan,
} from '../../helpers/otlp-collector';
import { makeTempDir } from '../../helpers/temp-dir';

let stub: OpenAiStub;
let collector: OtlpCollector;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  stub.respondWith(null);
});

async function openApp(env: NodeJS.ProcessEnv = {}): Promise<FleetscopeApp> {
  collector = await startOtlpCollector();
  const temp = makeTempDir('fleetscope-otlp-live-');
  const app = createApp({ dataDir: temp.dir, surface: 'cli', seedSamples: false, pingIntervalMs: 0, env });
  cleanups.push(
    temp.remove,
    () => collector.close(),
    () => app.close(),
  );
  return app;
}

function launch(
  app: FleetscopeApp,
  input: Omit<FleetInput, 'version' | 'name'>,
): {
  handle: RunHandle;
  events: RunEvent[];
} {
  const handle = app.runs.launch({
    source: { parsed: fleet(input) },
    task: 'Plan the launch',
    maxMessages: null,
  });
  const events: RunEvent[] = [];
  handle.onDidEvent((event) => events.push(event));
  return { handle, events };
}

function completed(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

/** `agent: text` for every chat span, from its gen_ai.output.messages. */
function spokenLines(spans: ReceivedSpan[]): string[] {
  return spans
    .filter((span) => attr(span, 'gen_ai.operation.name') === 'chat')
    .map((span) => {
      const output = JSON.parse(attr(span, 'gen_ai.output.messages') ?? '[]') as Array<{
        parts: Array<{ type: string; content?: string }>;
      }>;
      const text = output[0]?.parts.find((part) => part.type === 'text')?.content ?? '';
      return `${attr(span, 'gen_ai.agent.name')}: ${text}`;
    });
}

const pair = {
  agents: [scripted('ann', ['hello bob'], { loop: true }), scripted('bob', ['hi ann'], { loop: true })],
  team: { pattern: 'round-robin' as const },
  termination: { type: 'max-messages' as const, max: 5 },
};

describe('live OTLP export to a collector', () => {
  it('streams each turn to a real HTTP collector while the run goes on, then the root span', async () => {
    const app = await openApp({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc123,x-team=blue' });
    app.liveExport.useEndpoint(collector.endpoint);
    // bob's model call waits until the test has seen ann's span arrive at the collector.
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    stub.respondWith(async (request) => {
      const system = JSON.stringify(request.body?.messages?.[0] ?? '');
      if (system.includes('bob')) await gate;
      return { type: 'text', content: system.includes('bob') ? 'bob here' : 'ann here' };
    });
    const { handle, events } = launch(app, {
      agents: [
        llm('ann', stub.baseUrl, { systemPrompt: 'You are ann.' }),
        llm('bob', stub.baseUrl, { systemPrompt: 'You are bob.' }),
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 3 },
    });

    const annSpan = await collector.waitForSpan((span) => attr(span, 'gen_ai.agent.name') === 'ann');
    // The span reached the collector while bob's reply was still being held back.
    expect(handle.status).toBe('running');
    expect(completed(events).map((message) => message.from)).toEqual(['user', 'ann']);
    release();
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    await app.liveExport.flush(5_000);

    const request = collector.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/traces');
    // OTLP/HTTP's default encoding: protobuf.
    expect(request?.headers['content-type']).toBe('application/x-protobuf');
    expect(request?.headers.authorization).toBe('Bearer abc123');
    expect(request?.headers['x-team']).toBe('blue');

    const spans = collector.spans();
    const agentMessages = completed(events).filter((message) => message.from !== 'user');
    expect(spokenLines(spans)).toEqual(agentMessages.map((message) => `${message.from}: ${message.content}`));
    expect(attr(annSpan, 'gen_ai.conversation.id')).toBe(handle.sessionId);
    expect(attr(annSpan, 'gen_ai.request.model')).toBe('stub-model');
    const root = spans.at(-1);
    expect(root?.name).toBe('invoke_agent test fleet');
    expect(root?.parentSpanId ?? '').toBe('');
    expect(attr(root, 'fleetscope.session.status')).toBe('completed');
    for (const span of spans) expect(span.traceId).toBe(root?.traceId);
    for (const span of spans.slice(0, -1)) expect(span.parentSpanId).toBe(root?.spanId);
    expect(app.liveExport.report()).toEqual([
      expect.objectContaining({ sent: spans.length, dropped: 0, failed: 0, pending: 0 }),
    ]);
  });

  it('uses the endpoint in Settings for every run the app starts, in the protocol the environment names', async () => {
    const app = await openApp({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    await expect(app.call('settings.set', { otlpExportEndpoint: 'ftp://example.com' })).rejects.toThrow();
    await app.call('settings.set', { otlpExportEndpoint: `${collector.endpoint}/` });
    const { handle, events } = launch(app, pair);
    await handle.done;
    await app.liveExport.flush(5_000);
    expect(collector.requests.every((request) => request.path === '/v1/traces')).toBe(true);
    expect(collector.requests[0]?.headers['content-type']).toBe('application/json');
    expect(collector.requests[0]?.headers['content-encoding']).toBe('gzip');
    const agentMessages = completed(events).filter((message) => message.from !== 'user');
    expect(spokenLines(collector.spans())).toEqual(
      agentMessages.map((message) => `${message.from}: ${message.content}`),
    );
  });

  it('exports nothing when neither Settings nor the command names an endpoint', async () => {
    const app = await openApp();
    const { handle } = launch(app, pair);
    await handle.done;
    await app.liveExport.flush(1_000);
    expect(collector.requests).toHaveLength(0);
    expect(app.liveExport.report()).toEqual([]);
  });

  it('a continued run gets its own span under the root, and its turns arrive too', async () => {
    const app = await openApp();
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle, events } = launch(app, pair);
    await handle.done;
    app.runs.continue(handle.sessionId, 'And now the budget', {});
    await handle.done;
    // continue() starts the follow-up; wait for it to finish.
    while (handle.status !== 'completed' || events.filter((e) => e.kind === 'session.stopped').length < 2)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await app.liveExport.flush(5_000);
    const spans = collector.spans();
    const roots = spans.filter((span) => attr(span, 'gen_ai.operation.name') === 'invoke_agent');
    expect(roots).toHaveLength(2);
    const [root, continuation] = roots;
    expect(continuation?.parentSpanId).toBe(root?.spanId);
    expect(continuation?.spanId).not.toBe(root?.spanId);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    const agentMessages = completed(events).filter((message) => message.from !== 'user');
    expect(spokenLines(spans)).toEqual(agentMessages.map((message) => `${message.from}: ${message.content}`));
  });
});

describe('a collector that fails never slows or stops the run', () => {
  it('a collector that never answers: the run completes, every message is stored, close does not hang', async () => {
    const app = await openApp({ OTEL_EXPORTER_OTLP_TIMEOUT: '60000' });
    collector.setFallback({ type: 'hang' });
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle, events } = launch(app, pair);
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(summary.messageCount).toBe(5);
    // The first request is still unanswered when the run has already finished.
    await collector.waitForRequests(1);
    expect(collector.requests.some((request) => request.answered)).toBe(false);
    const page = app.store.pageMessages(handle.sessionId, {});
    expect(page.items.map((message) => message.content)).toEqual(
      completed(events).map((message) => message.content),
    );
    expect(app.liveExport.report()[0]).toEqual(expect.objectContaining({ sent: 0 }));
    expect(app.liveExport.report()[0]?.pending).toBeGreaterThan(0);
  });

  it('a collector that answers 500: not retried (the specification says so), counted as failed', async () => {
    const app = await openApp();
    collector.setFallback({ type: 'status', status: 500, body: '{"code":13,"message":"storage is down"}' });
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle } = launch(app, pair);
    expect((await handle.done).status).toBe('completed');
    await app.liveExport.flush(5_000);
    const report = app.liveExport.report()[0];
    expect(report?.sent).toBe(0);
    expect(report?.failed).toBe(collector.spans().length);
    expect(report?.lastError).toContain('HTTP 500: storage is down');
    // One request per batch: none was sent twice.
    const ids = collector.spans().map((span) => span.spanId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('503 with Retry-After and 429: the same batch is retried, then delivered once', async () => {
    const app = await openApp();
    collector.enqueue(
      { type: 'status', status: 503, headers: { 'retry-after': '0' } },
      { type: 'status', status: 429, headers: { 'retry-after': '1' } },
    );
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle, events } = launch(app, pair);
    await handle.done;
    await app.liveExport.flush(10_000);
    const [first, second, third] = collector.requests;
    expect(second?.body).toEqual(first?.body);
    expect(third?.body).toEqual(first?.body);
    const report = app.liveExport.report()[0];
    expect(report?.failed).toBe(0);
    expect(report?.pending).toBe(0);
    const delivered = collector.requests
      .slice(2)
      .flatMap((request) =>
        (request.body?.resourceSpans ?? []).flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans),
        ),
      );
    expect(report?.sent).toBe(delivered.length);
    expect(spokenLines(delivered)).toEqual(
      completed(events)
        .filter((message) => message.from !== 'user')
        .map((message) => `${message.from}: ${message.content}`),
    );
  });

  it('a partial success: the spans count as sent (the SDK exporter takes a 200 as delivered)', async () => {
    const app = await openApp();
    collector.setFallback({
      type: 'ok',
      body: { partialSuccess: { rejectedSpans: '1', errorMessage: 'one span was too old' } },
    });
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle } = launch(app, pair);
    await handle.done;
    await app.liveExport.flush(5_000);
    const report = app.liveExport.report()[0];
    expect(report).toEqual(
      expect.objectContaining({ sent: collector.spans().length, failed: 0, pending: 0 }),
    );
  });

  it('an export that outlasts OTEL_EXPORTER_OTLP_TIMEOUT is given up, counted and said why', async () => {
    const app = await openApp({ OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
    collector.setFallback({ type: 'hang' });
    app.liveExport.useEndpoint(collector.endpoint);
    const { handle, events } = launch(app, pair);
    expect((await handle.done).status).toBe('completed');
    // Each export gives up at its deadline; wait (without a time bound) until all did.
    let report = app.liveExport.report()[0];
    while ((report?.pending ?? 0) > 0) {
      await app.liveExport.flush(1_000);
      report = app.liveExport.report()[0];
    }
    expect(report?.sent).toBe(0);
    // Every agent turn's span and the root span.
    expect(report?.failed).toBe(completed(events).filter((message) => message.from !== 'user').length + 1);
    expect(report?.lastError).toContain('timed out');
  });
});

describe('the queue is bounded', () => {
  it('holds at most maxQueueSpans: the newest are dropped and counted, and the run is unaffected', async () => {
    const app = await openApp();
    collector.setFallback({ type: 'hang' });
    const exporter = new OtlpLiveExport({
      store: app.store,
      settingsEndpoint: () => collector.endpoint,
      env: {},
      logger: silentLogger,
      limits: { maxQueueSpans: 8, maxBatchSpans: 4, batchDelayMs: 0 },
    });
    const stop = app.runs.onDidEvent((event) => exporter.observe(event));
    cleanups.push(stop, () => exporter.close());
    const { handle, events } = launch(app, { ...pair, termination: { type: 'max-messages', max: 60 } });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(summary.messageCount).toBe(60);
    await collector.waitForRequests(1);
    const report = exporter.report()[0];
    // 59 agent turns and the root span: one hung request of at most 4, 8 queued, the rest dropped.
    expect(report?.sent).toBe(0);
    expect(report?.pending).toBeGreaterThan(8);
    expect(report?.pending).toBeLessThanOrEqual(12);
    expect((report?.dropped ?? 0) + (report?.pending ?? 0)).toBe(60);
    // What reached the collector is the oldest: the run's first turns.
    const first = completed(events)
      .filter((message) => message.from !== 'user')
      .map((message) => `${message.from}: ${message.content}`);
    const arrived = spokenLines(collector.spans());
    expect(arrived).toEqual(first.slice(0, arrived.length));
    // Closing gives up what is queued and in flight, and says so.
    const pending = report?.pending;
    await exporter.close();
    expect(exporter.report()[0]).toEqual(expect.objectContaining({ failed: pending, pending: 0 }));
  });
});
