import { describe, it } from 'vitest';
import { SessionMapper } from '../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../src-main/interop/span-mapping/span-index';
import type { TraceSpan } from '../../src-main/interop/span-mapping/span';
import { chatSpan } from './chat-spans';
import { benchSize } from './harness';

/**
 * Rebuilding who said what to whom from model calls that each resend the whole history (two
 * agents taking turns, as chat loops do): the time per input message must stay flat as the
 * conversation grows (work linear in the text received, not in history x input). Sizes double
 * from FLEETSCOPE_BENCH_RESEND_TURNS / 4 (default 2,000 turns at the top); printed, never asserted.
 */
const TOP = benchSize('FLEETSCOPE_BENCH_RESEND_TURNS', 2_000);

function conversation(turns: number): TraceSpan[] {
  const history: Array<{ role: string; name?: string; parts: Array<{ type: string; content: string }> }> = [];
  const spans: TraceSpan[] = [];
  const say = (i: number) => `Turn ${i}: here is a considered reply with a few details, number ${i * 7}.`;
  history.push({ role: 'user', parts: [{ type: 'text', content: 'Discuss the launch plan.' }] });
  for (let i = 0; i < turns; i++) {
    const agent = i % 2 === 0 ? 'Ann' : 'Bob';
    const output = say(i);
    spans.push(
      chatSpan({
        i,
        traceChar: 'a',
        agent,
        conversationId: 'resend',
        input: JSON.stringify(history),
        output,
      }),
    );
    history.push({ role: 'user', name: agent, parts: [{ type: 'text', content: output }] });
  }
  return spans;
}

describe('conversation rebuild with resent history', () => {
  it('ns per input message stays flat as the conversation doubles', () => {
    for (const turns of [TOP / 4, TOP / 2, TOP].map(Math.round)) {
      const spans = conversation(turns);
      const inputs = (turns * (turns + 1)) / 2;
      const started = process.hrtime.bigint();
      const index = new SpanIndex({ holdMs: 0, retainMs: Infinity, maxSpans: Infinity });
      index.add(spans, 0);
      const mapper = new SessionMapper(1_000_000);
      let messages = 0;
      for (const group of index.drain(0, true).values()) {
        const events = [...mapper.map(group, undefined, true), ...mapper.finish('done')];
        messages += events.filter((event) => event.kind === 'message.completed').length;
      }
      const ns = Number(process.hrtime.bigint() - started);
      console.log(
        `resend ${turns} turns: ${inputs} input messages, ${messages} messages, ${(ns / inputs).toFixed(0)} ns per input message, ${(ns / 1e6).toFixed(0)} ms`,
      );
    }
  });
});
