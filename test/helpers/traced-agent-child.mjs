// Child process for the cross-process trace tests: one agent of a conversation in a process of its
// own, as `examples/otel/agents-talk.mjs` traces it (an agent span around a model call of the
// openai SDK, instrumented by OpenInference), with its own BatchSpanProcessor and OTLP exporter.
//
//   node traced-agent-child.mjs <agent> <conversation id> <what it heard> [<who said it>]
//   env: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OPENAI_BASE_URL
//
// Prints `said <answer as JSON>` once the model answered, then holds its spans until a line
// arrives on stdin, sends them in one export and exits: the parent decides which process's
// export reaches the receiver first. With <who said it>, the agent span names the speaker in
// OpenInference's `graph.node.parent_id`, as the example does.
import { createInterface } from 'node:readline';
import * as openaiModule from 'openai';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';

const [agent, conversationId, heard, from] = process.argv.slice(2);
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': `agent-${agent}` }),
  // Nothing leaves before the parent says so (shutdown exports what is buffered).
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 600_000 })],
});
provider.register();
new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(openaiModule);
const client = new openaiModule.OpenAI({ apiKey: 'stub' });

const answer = await trace.getTracer('traced-agent-child').startActiveSpan(
  `invoke_agent ${agent}`,
  {
    attributes: {
      'openinference.span.kind': 'AGENT',
      'agent.name': agent,
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent,
      'gen_ai.conversation.id': conversationId,
      'session.id': conversationId,
      ...(from ? { 'graph.node.id': agent, 'graph.node.parent_id': from } : {}),
    },
  },
  async (span) => {
    try {
      const completion = await client.chat.completions.create({
        model: 'stub-model',
        messages: [
          { role: 'system', content: `You are ${agent}.` },
          { role: 'user', content: heard },
        ],
      });
      return completion.choices[0]?.message?.content ?? '';
    } finally {
      span.end();
    }
  },
);
console.log(`said ${JSON.stringify(answer)}`);
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
await provider.shutdown();
