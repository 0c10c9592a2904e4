import { request as httpRequest } from 'node:http';
import { encodeTraceRequest } from '../../../src-main/interop/otlp-in/otlp-codec';

const AGENTS = ['planner', 'researcher', 'writer', 'critic', 'editor'];
const TEXT = 'A sentence an agent might say about the plan, with a few more words. '.repeat(3);

const hex = (value: bigint, digits: number) => value.toString(16).padStart(digits, '0');

/**
 * One OTLP export request (protobuf) of `count` chat spans of one conversation, as an
 * instrumented multi-agent program would send them: each names its agent and conversation, and
 * carries one output message; `marker` replaces the text of the last one.
 */
export function chatBatch(options: {
  conversation: string;
  trace: number;
  firstSpan: number;
  count: number;
  startMs: number;
  marker?: string;
}): Uint8Array {
  const spans = [];
  for (let i = 0; i < options.count; i++) {
    const n = options.firstSpan + i;
    const start = BigInt(Math.round((options.startMs + n * 5) * 1000)) * 1000n;
    const text = options.marker && i === options.count - 1 ? options.marker : `${TEXT}(${n})`;
    spans.push({
      traceId: Buffer.from(hex(BigInt(options.trace) + 1n, 32), 'hex'),
      spanId: Buffer.from(hex(BigInt(n) + 1n, 16), 'hex'),
      name: 'chat gpt-4o-mini',
      kind: 3,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + 4_000_000n).toString(),
      attributes: Object.entries({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.agent.name': AGENTS[n % AGENTS.length] as string,
        'gen_ai.conversation.id': options.conversation,
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: text }] },
        ]),
      }).map(([key, value]) => ({ key, value: { stringValue: value } })),
    });
  }
  return encodeTraceRequest({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [{ scope: { name: 'bench' }, spans }],
      },
    ],
  });
}

/** POSTs one body as an OTLP exporter does and resolves with the status once answered. */
export function postTraces(port: number, token: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/traces',
        headers: {
          'Content-Type': 'application/x-protobuf',
          'Content-Length': body.length,
          'x-fleetscope-token': token,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
