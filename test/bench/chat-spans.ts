import type { TraceSpan } from '../../src-main/interop/span-mapping/span';

export interface ChatTurn {
  /** The turn's index: its span id is i + 1, it starts at 1,000,000 + 10·i ms and lasts 5 ms. */
  i: number;
  /** One trace per conversation: its id is this character 32 times. */
  traceChar: string;
  agent: string;
  conversationId: string;
  /** `gen_ai.input.messages` as sent (JSON text). */
  input: string;
  /** What the agent answered. */
  output: string;
  /** Moves the span's times, as a process whose clock runs behind (ms, default 0). */
  skewMs?: number;
}

/** A model call's span as a GenAI-instrumented app exports it, for the conversation benches. */
export function chatSpan(turn: ChatTurn): TraceSpan {
  const start = 1_000_000 + turn.i * 10 + (turn.skewMs ?? 0);
  return {
    traceId: turn.traceChar.repeat(32),
    spanId: (turn.i + 1).toString(16).padStart(16, '0'),
    parentSpanId: null,
    name: 'chat',
    kind: 1,
    startMs: start,
    endMs: start + 5,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.agent.name': turn.agent,
      'gen_ai.conversation.id': turn.conversationId,
      'gen_ai.input.messages': turn.input,
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: turn.output }] },
      ]),
    },
    events: [],
    status: { code: 0, message: '' },
    resource: {},
    scope: 'bench',
  };
}
