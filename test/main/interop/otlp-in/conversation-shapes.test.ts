import * as openaiModule from 'openai';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, RunEvent, SessionSummary } from '../../../../src-shared/domain';
import { startOpenAiStub, type OpenAiStub } from '../../../helpers/openai-stub';
import { startTestHost, type RunningHost } from '../../../helpers/web-host';

/**
 * Agents in a program of their own, traced by OpenInference's instrumentation of the `openai` SDK
 * (from npm), answered by the stub model server and sent to a running Fleetscope with the standard
 * OTLP exporter: the conversation must come back as who said what to whom.
 */

let stub: OpenAiStub;
let host: RunningHost;
let provider: NodeTracerProvider;

beforeAll(async () => {
  stub = await startOpenAiStub();
  // Each agent answers with a sentence of its own, long enough to be recognised when quoted.
  let count = 0;
  stub.respondWith((request) => {
    const system = request.body?.messages?.find((message) => message.role === 'system');
    const name = /You are (\w+)/.exec(String(system?.content ?? ''))?.[1] ?? 'someone';
    count++;
    return {
      type: 'text',
      content: `${name} answer ${count}: the plan needs a budget, a date and a venue for everyone.`,
    };
  });
  host = await startTestHost();
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'conversation-shapes' }),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({
          url: `http://127.0.0.1:${host.host.port}/v1/traces`,
          headers: { 'x-fleetscope-token': host.host.token },
        }),
        { scheduledDelayMillis: 200 },
      ),
    ],
  });
  provider.register();
  // As the README example does: the instrumentation patches the module's OpenAI class (its types
  // name the class, its code takes the module).
  new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(
    openaiModule as unknown as typeof openaiModule.OpenAI,
  );
});

afterAll(async () => {
  await provider?.shutdown();
  await stub?.close();
  await host?.stop();
});

/** A traced program: one workflow span around the agents' turns, all sent when it ends. */
async function program(
  conversation: string,
  body: (turn: Turn) => Promise<string>,
): Promise<{ task: string; said: Map<string, string[]> }> {
  const client = new openaiModule.OpenAI({ apiKey: 'stub', baseURL: stub.baseUrl });
  const tracer = provider.getTracer('conversation-shapes');
  const said = new Map<string, string[]>();
  const turn: Turn = (agent, messages) =>
    tracer.startActiveSpan(
      `agent ${agent}`,
      { attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': agent } },
      async (span: Span) => {
        const completion = await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'system', content: `You are ${agent}.` }, ...messages],
        });
        span.end();
        const text = completion.choices[0]?.message?.content ?? '';
        said.set(agent, [...(said.get(agent) ?? []), text]);
        return text;
      },
    );
  let task = '';
  await tracer.startActiveSpan(
    'workflow',
    { attributes: { 'openinference.span.kind': 'CHAIN', 'session.id': conversation } },
    async (span: Span) => {
      task = await body(turn);
      span.end();
    },
  );
  await provider.forceFlush();
  return { task, said };
}

type ChatMessage = { role: 'user' | 'assistant'; content: string; name?: string };
type Turn = (agent: string, messages: ChatMessage[]) => Promise<string>;

function sessionOf(title: string): SessionSummary | undefined {
  return host.app.store
    .listSessions({})
    .items.find((session) => session.source === 'otlp' && session.title.includes(title));
}

/** Waits (asserting nothing on time) until the session has completed, and returns its messages. */
async function completed(title: string): Promise<{ session: SessionSummary; messages: Message[] }> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const session = sessionOf(title);
    if (session && session.status !== 'running') {
      const events: RunEvent[] = [...host.app.store.iterateEvents(session.id)];
      const messages = events.flatMap((event) =>
        event.kind === 'message.completed' ? [event.payload.message] : [],
      );
      return { session, messages };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`The session "${title}" did not complete.`);
}

const lines = (messages: Message[]) => messages.map((m) => `${m.from} -> ${m.to}: ${m.content}`);

describe('conversations traced by OpenInference, rebuilt as who said what to whom', () => {
  it('a pipeline (each agent passes on what it heard, history resent) reads Researcher -> Analyst -> Editor', async () => {
    const task = 'Pipeline task: organise the summer party for forty people.';
    const { said } = await program('pipeline-1', async (turn) => {
      const a1 = await turn('Researcher', [{ role: 'user', content: task }]);
      // Quoted inside a longer input, in other formatting.
      const b1 = await turn('Analyst', [{ role: 'user', content: `Researcher said:\n\n> *${a1}*` }]);
      // Every call resends what came before.
      const c1 = await turn('Editor', [
        { role: 'user', content: task },
        { role: 'user', content: a1 },
        { role: 'user', content: `**Analyst:**   ${b1.replace(/ /g, '  ')}` },
      ]);
      await turn('Researcher', [
        { role: 'user', content: task },
        { role: 'assistant', content: a1 },
        { role: 'user', content: c1 },
      ]);
      return task;
    });
    const { session, messages } = await completed('Pipeline task');
    const [a1, a2] = said.get('Researcher') as [string, string];
    const [b1] = said.get('Analyst') as [string];
    const [c1] = said.get('Editor') as [string];
    expect(lines(messages)).toEqual([
      `user -> Researcher: ${task}`,
      `Researcher -> Analyst: ${a1}`,
      `Analyst -> Editor: ${b1}`,
      `Editor -> Researcher: ${c1}`,
      `Researcher -> user: ${a2}`,
    ]);
    expect(session.status).toBe('completed');
    expect(session.stopReason).toMatch(/root span ended/);
  });

  it('a fan-out to three agents merged by a fourth: every answer once, each worker to the merger', async () => {
    const task = 'Fan-out task: choose a venue for the offsite.';
    const { said } = await program('fanout-1', async (turn) => {
      const plan = await turn('Lead', [{ role: 'user', content: task }]);
      const workers = ['Alpha', 'Beta', 'Gamma'];
      const answers = await Promise.all(
        workers.map((worker) => turn(worker, [{ role: 'user', name: 'Lead', content: plan }])),
      );
      const merged = answers.map((answer, i) => `${i + 1}. ${workers[i]}: ${answer}`).join('\n');
      await turn('Merger', [{ role: 'user', content: `Merge these:\n\n${merged}` }]);
      return task;
    });
    const { session, messages } = await completed('Fan-out task');
    const text = (agent: string) => (said.get(agent) as [string])[0];
    const edges = new Set(messages.map((m) => `${m.from} -> ${m.to}`));
    for (const worker of ['Alpha', 'Beta', 'Gamma']) expect(edges).toContain(`${worker} -> Merger`);
    expect(edges).toContain('user -> Lead');
    expect(edges).toContain('Merger -> user');
    // Every sentence exactly once, from its speaker.
    const spoken = [task, ...['Lead', 'Alpha', 'Beta', 'Gamma', 'Merger'].map(text)];
    expect(messages.map((m) => m.content).sort()).toEqual([...spoken].sort());
    for (const agent of ['Lead', 'Alpha', 'Beta', 'Gamma', 'Merger'])
      expect(messages.find((m) => m.content === text(agent))?.from).toBe(agent);
    // The plan reached the workers: it is addressed to one of them (a message has one recipient).
    expect(['Alpha', 'Beta', 'Gamma']).toContain(messages.find((m) => m.content === text('Lead'))?.to);
    expect(session.status).toBe('completed');
  });
});
