import * as openaiModule from 'openai';
import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Message, RunEvent, SessionSummary } from '../../../../src-shared/domain';
import { startOpenAiStub, type OpenAiStub, type StubReply } from '../../../helpers/openai-stub';
import { startTestHost, type RunningHost } from '../../../helpers/web-host';
import { messagesInLogOrder } from './span-builders';

/**
 * Agents in a program of their own, their `openai` SDK calls traced by a real instrumentation
 * from npm, answered by the stub model server and sent to a running Fleetscope with the standard
 * OTLP exporter. The four shapes issue 22 names: a pipeline, a supervisor calling workers as
 * tools, handoffs, and a fan-out merged by a fourth agent.
 */

/** How the program marks its own agent and tool spans (the instrumentation makes the model calls'). */
export type SpanStyle = 'openinference' | 'traceloop' | 'genai';

export type ChatMessage =
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallMessage[] }
  | { role: 'tool'; content: string; tool_call_id: string };

interface ToolCallMessage {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface TurnResult {
  text: string;
  toolCalls: ToolCallMessage[];
}

export interface Program {
  /** One model call of `agent` (its system prompt first) inside the agent's span. */
  turn(agent: string, messages: ChatMessage[], tools?: string[]): Promise<TurnResult>;
  /** An agent span open around `body` (for an agent making several calls). */
  agent<T>(agent: string, body: () => Promise<T>): Promise<T>;
  /** A tool's span around `body`, whose result is what `body` returns. */
  tool(name: string, callId: string, args: string, body: () => Promise<string>): Promise<string>;
}

export interface ShapeRig {
  stub: OpenAiStub;
  host: RunningHost;
  provider: NodeTracerProvider;
  /** Runs `body` inside one workflow span of conversation `conversation` and sends the spans. */
  run(conversation: string, body: (program: Program) => Promise<void>): Promise<Map<string, string[]>>;
  stop(): Promise<void>;
}

/** The sentence each agent says: its own words, long enough to be recognised when quoted. */
export function sentence(agent: string, count: number): string {
  return `${agent} answer ${count}: the plan needs a budget, a date and a venue for everyone.`;
}

/**
 * Answers by the agent named in the system prompt ("You are X."): a supervisor first asks its
 * worker through a tool, a triage agent first hands off; everyone else answers a sentence.
 */
export function shapeResponder(): (body: {
  messages?: Array<{ role: string; content?: unknown }>;
}) => StubReply {
  let count = 0;
  return (body) => {
    const messages = body.messages ?? [];
    const system = messages.find((message) => message.role === 'system');
    const name = /You are (\w+)/.exec(String(system?.content ?? ''))?.[1] ?? 'someone';
    const hadTool = messages.some((message) => message.role === 'tool');
    count++;
    if (name === 'Supervisor' && !hadTool)
      return {
        type: 'tools',
        calls: ['Researcher', 'Analyst'].map((worker) => ({
          id: `call_${worker}_${count}`,
          name: `ask_${worker}`,
          arguments: JSON.stringify({ question: `${worker}, what does the venue cost for forty people?` }),
        })),
      };
    if (name === 'Triage' && !hadTool)
      return {
        type: 'tools',
        calls: [{ id: `call_transfer_${count}`, name: 'transfer_to_Billing', arguments: '{}' }],
      };
    return { type: 'text', content: sentence(name, count) };
  };
}

/**
 * `instrument` installs the instrumentation under test; null: the program records its model calls
 * itself as the OpenTelemetry GenAI conventions say (`gen_ai.input.messages`, `gen_ai.output.messages`).
 */
export async function startShapeRig(
  instrument: ((provider: NodeTracerProvider) => void | Promise<void>) | null,
  style: SpanStyle,
): Promise<ShapeRig> {
  const stub = await startOpenAiStub();
  const respond = shapeResponder();
  stub.respondWith((request) => respond(request.body ?? {}));
  const host = await startTestHost();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': `conversation-shapes-${style}` }),
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
  await instrument?.(provider);
  const client = new openaiModule.OpenAI({ apiKey: 'stub', baseURL: stub.baseUrl });
  const tracer = provider.getTracer('conversation-shapes');

  const agentAttributes = (agent: string): Record<string, string> =>
    style === 'openinference'
      ? { 'openinference.span.kind': 'AGENT', 'agent.name': agent }
      : style === 'traceloop'
        ? { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': agent }
        : { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent };
  const toolAttributes = (name: string, callId: string, args: string): Record<string, string> =>
    style === 'openinference'
      ? { 'openinference.span.kind': 'TOOL', 'tool.name': name, 'input.value': args }
      : style === 'traceloop'
        ? { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': name, 'traceloop.entity.input': args }
        : {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': name,
            'gen_ai.tool.call.id': callId,
            'gen_ai.tool.call.arguments': args,
          };
  const toolResult = (result: string): Record<string, string> =>
    style === 'openinference'
      ? { 'output.value': result }
      : style === 'traceloop'
        ? { 'traceloop.entity.output': result }
        : { 'gen_ai.tool.call.result': result };

  async function run(conversation: string, body: (program: Program) => Promise<void>) {
    const said = new Map<string, string[]>();
    const inSpan = <T>(name: string, attributes: Record<string, string>, work: (span: Span) => Promise<T>) =>
      tracer.startActiveSpan(name, { attributes }, async (span: Span) => {
        try {
          return await work(span);
        } finally {
          span.end();
        }
      });
    // A turn inside its agent's own open span makes its model call there, as frameworks do.
    const open = new Set<string>();
    const agentSpan = <T>(agent: string, work: () => Promise<T>): Promise<T> =>
      open.has(agent)
        ? work()
        : inSpan(`agent ${agent}`, agentAttributes(agent), async () => {
            open.add(agent);
            try {
              return await work();
            } finally {
              open.delete(agent);
            }
          });
    const program: Program = {
      agent: agentSpan,
      turn: (agent, messages, tools = []) =>
        agentSpan(agent, async () => {
          const request = {
            model: 'gpt-4o-mini',
            messages: [{ role: 'system' as const, content: `You are ${agent}.` }, ...messages],
            ...(tools.length > 0
              ? {
                  tools: tools.map((name) => ({
                    type: 'function' as const,
                    function: { name, parameters: { type: 'object', properties: {} } },
                  })),
                }
              : {}),
          };
          const completion = instrument
            ? await client.chat.completions.create(request)
            : await inSpan('chat gpt-4o-mini', { 'gen_ai.operation.name': 'chat' }, async (span) => {
                const reply = await client.chat.completions.create(request);
                const answer = reply.choices[0]?.message;
                span.setAttributes(
                  genAiAttributes(
                    request.messages,
                    answer && { ...answer, tool_calls: functionCalls(answer) },
                  ),
                );
                return reply;
              });
          const message = completion.choices[0]?.message;
          const text = message?.content ?? '';
          const toolCalls = message ? functionCalls(message) : [];
          if (text) said.set(agent, [...(said.get(agent) ?? []), text]);
          return { text, toolCalls };
        }),
      tool: (name, callId, args, work) =>
        inSpan(`execute_tool ${name}`, toolAttributes(name, callId, args), async (span) => {
          const result = await work();
          span.setAttributes(toolResult(result));
          return result;
        }),
    };
    const workflow: Record<string, string> =
      style === 'openinference'
        ? { 'openinference.span.kind': 'CHAIN', 'session.id': conversation }
        : style === 'traceloop'
          ? { 'traceloop.span.kind': 'workflow', 'traceloop.association.properties.session_id': conversation }
          : { 'gen_ai.conversation.id': conversation };
    await inSpan('workflow', workflow, () => body(program));
    await provider.forceFlush();
    return said;
  }

  return {
    stub,
    host,
    provider,
    run,
    async stop() {
      await provider.shutdown();
      await stub.close();
      await host.stop();
    },
  };
}

function functionCalls(message: openaiModule.OpenAI.ChatCompletionMessage): ToolCallMessage[] {
  return (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
}

type SentMessage = {
  role: string;
  content?: string | null;
  tool_calls?: ToolCallMessage[];
  tool_call_id?: string;
};

/** A chat call's messages as the GenAI semantic conventions' `gen_ai.*.messages` JSON. */
function genAiAttributes(
  sent: readonly SentMessage[],
  reply: SentMessage | undefined,
): Record<string, string> {
  const parts = (message: SentMessage) => [
    ...(message.content ? [{ type: 'text', content: message.content }] : []),
    ...(message.tool_calls ?? []).map((call) => ({
      type: 'tool_call',
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
    ...(message.role === 'tool'
      ? [{ type: 'tool_call_response', id: message.tool_call_id, response: message.content }]
      : []),
  ];
  const system = sent.filter((message) => message.role === 'system');
  return {
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.system_instructions': JSON.stringify(
      system.map((message) => ({ type: 'text', content: message.content })),
    ),
    'gen_ai.input.messages': JSON.stringify(
      sent
        .filter((message) => message.role !== 'system')
        .map((message) => ({
          role: message.role,
          parts: message.role === 'tool' ? parts(message).slice(-1) : parts(message),
        })),
    ),
    'gen_ai.output.messages': JSON.stringify(
      reply ? [{ role: 'assistant', parts: parts(reply), finish_reason: 'stop' }] : [],
    ),
  };
}

function sessionOf(host: RunningHost, title: string): SessionSummary | undefined {
  return host.app.store
    .listSessions({})
    .items.find((session) => session.source === 'otlp' && session.title.includes(title));
}

/** Waits (asserting nothing on time) until the session has ended; its events and messages. */
export async function completed(
  host: RunningHost,
  title: string,
): Promise<{ session: SessionSummary; messages: Message[]; events: RunEvent[] }> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const session = sessionOf(host, title);
    if (session && session.status !== 'running') {
      const events: RunEvent[] = [...host.app.store.iterateEvents(session.id)];
      // In the order they started, as the transcript shows them.
      const messages = messagesInLogOrder(events);
      return { session, messages, events };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`The session "${title}" did not complete.`);
}

/**
 * Each message as "from -> to: content", tool calls and results as "from [tool name]", in the
 * order given (`completed` gives the order they started in; span clocks may put an end a
 * fraction of a ms after the next span's start).
 */
export function lines(messages: Message[]): string[] {
  return messages.map((m) => {
    const calls = (m.toolCalls ?? []).map((call) => call.name);
    const results = (m.toolResults ?? []).map((result) => `${result.name} result`);
    if (calls.length > 0 || results.length > 0) return `${m.from} [${[...calls, ...results].join(', ')}]`;
    const also = Array.isArray(m.meta.alsoTo) ? `, ${m.meta.alsoTo.join(', ')}` : '';
    return `${m.from} -> ${m.to}${also}: ${m.content}`;
  });
}
