// Three agents plan something in turns; every model call is traced with OpenTelemetry and sent to
// any OTLP/HTTP endpoint (Fleetscope's receiver, a Collector, Jaeger, Phoenix, Langfuse).
//
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:PORT        (as `fleetscope serve` prints it)
//   OTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=...        (idem)
//   OPENAI_BASE_URL=http://127.0.0.1:4141/v1                 (`npm run stub`, or any compatible server)
//   OPENAI_API_KEY=...                                       (any text for the stub)
//   node examples/otel/agents-talk.mjs ["what to plan"]
//
// The openai SDK is instrumented by OpenInference (@arizeai/openinference-instrumentation-openai):
// each chat completion becomes an LLM span with its input and output messages. Each turn is
// wrapped in an agent span carrying both the OpenTelemetry GenAI attributes (gen_ai.agent.name,
// gen_ai.conversation.id) and OpenInference's (openinference.span.kind AGENT, agent.name,
// graph.node.id, graph.node.parent_id: the agent it answers), so a viewer can tell which agent
// made which call and who spoke after whom. What was said is on the model call's span only.
import { randomUUID } from 'node:crypto';
import * as openaiModule from 'openai';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';

const AGENTS = [
  { name: 'Planner', prompt: 'You are Planner. Propose concrete next steps in two sentences.' },
  { name: 'Critic', prompt: 'You are Critic. Point out the biggest risk in what you were told, briefly.' },
  { name: 'Writer', prompt: 'You are Writer. Turn what you were told into one clear sentence for the team.' },
];
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const MODEL = process.env.MODEL ?? 'gpt-4o-mini';
const topic = process.argv[2] ?? 'Plan the launch of a small open-source tool.';

// The standard OTLP exporter reads OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS.
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'otel-example-agents' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
});
provider.register();
// ES modules are not patched on load; the instrumentation is applied to the module we import.
new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(openaiModule);

const client = new openaiModule.OpenAI({
  apiKey: process.env.OPENAI_API_KEY ?? 'no-key-needed-for-the-stub',
});
const tracer = trace.getTracer('fleetscope-otel-example');
const conversationId = process.env.CONVERSATION_ID ?? `example-${randomUUID()}`;

/** One agent's turn: an agent span around the instrumented model call. */
async function turn(agent, heard) {
  return tracer.startActiveSpan(
    `invoke_agent ${agent.name}`,
    {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent.name,
        'gen_ai.conversation.id': conversationId,
        'openinference.span.kind': 'AGENT',
        'agent.name': agent.name,
        'graph.node.id': agent.name,
        'graph.node.parent_id': heard.from,
        'session.id': conversationId,
      },
    },
    async (span) => {
      try {
        const completion = await client.chat.completions.create({
          model: MODEL,
          messages: [
            { role: 'system', content: agent.prompt },
            { role: 'user', name: heard.from, content: heard.text },
          ],
        });
        return completion.choices[0]?.message?.content ?? '';
      } catch (error) {
        span.recordException(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(error?.message ?? error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

let exitCode = 0;
try {
  // The conversation as one trace: a workflow span with the agents' turns under it.
  await tracer.startActiveSpan(
    'conversation',
    {
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'gen_ai.conversation.id': conversationId,
        'session.id': conversationId,
        'input.value': topic,
      },
    },
    async (span) => {
      let heard = { from: 'user', text: topic };
      console.log(`user: ${topic}`);
      for (let round = 0; round < ROUNDS; round++) {
        for (const agent of AGENTS) {
          const text = await turn(agent, heard);
          console.log(`${agent.name}: ${text}`);
          heard = { from: agent.name, text };
        }
      }
      span.setAttribute('output.value', heard.text);
      span.end();
    },
  );
  console.log(`conversation ${conversationId}: ${ROUNDS * AGENTS.length} turns traced`);
} catch (error) {
  console.error(`The conversation stopped: ${error?.message ?? error}`);
  exitCode = 1;
} finally {
  // Sends the spans still buffered before the process ends.
  await provider.shutdown();
}
process.exitCode = exitCode;
