import { describe, it } from 'vitest';
import { SessionMapper } from '../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../src-main/interop/span-mapping/span-index';
import type { TraceSpan } from '../../src-main/interop/span-mapping/span';
import { chatSpan } from './chat-spans';
import { benchReps, benchSize, interleave, median } from './harness';

/**
 * Live ingest with the conversation rebuilt (who said what to whom) beside the same ingest
 * without it (spans placed by SpanIndex, nothing mapped), in the same run: a conversation of
 * FLEETSCOPE_BENCH_CONV_TURNS turns (default 10,000) in which each agent's call gets what the
 * previous agent said (whole for even turns, quoted in a longer input for odd ones), every other
 * agent in a process whose clock runs 2 s behind, the first turn sent a megabyte prompt. Spans
 * arrive in exports of 100, as a BatchSpanProcessor sends them. Repetitions interleaved
 * (FLEETSCOPE_BENCH_REPS, default 3); spans per second and the ratio printed, never asserted.
 */
const TURNS = benchSize('FLEETSCOPE_BENCH_CONV_TURNS', 10_000);
const REPS = benchReps();
const BATCH = 100;
const BIG = `Summarise this log: ${'line of the build log with a timestamp and a status\n'.repeat(20_000)}`;

const text = (parts: string) => JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: parts }] }]);

function conversation(turns: number): TraceSpan[] {
  const spans: TraceSpan[] = [];
  let previous = BIG;
  for (let i = 0; i < turns; i++) {
    const agent = `Agent${i % 4}`;
    const skew = i % 2 === 1 ? -2_000 : 0;
    const output = `Turn ${i}: ${agent} considered it and adds detail number ${i * 7} for the next one.`;
    const input = i % 2 === 0 ? previous : `${`Agent${(i + 3) % 4}`} said:\n\n> ${previous}`;
    spans.push(
      chatSpan({
        i,
        traceChar: 'c',
        agent,
        conversationId: 'ingest',
        input: text(input),
        output,
        skewMs: skew,
      }),
    );
    previous = output;
  }
  return spans;
}

/** Spans per second through the live path, in exports of BATCH; `rebuild` maps each export. */
function ingest(spans: readonly TraceSpan[], rebuild: boolean): { perSecond: number; messages: number } {
  const started = process.hrtime.bigint();
  const index = new SpanIndex({ holdMs: 0, retainMs: Infinity, maxSpans: Infinity });
  const mapper = new SessionMapper(1_000_000);
  let placed = 0;
  let messages = 0;
  for (let at = 0; at < spans.length; at += BATCH) {
    index.add(spans.slice(at, at + BATCH), at);
    for (const group of index.drain(at).values()) {
      placed += group.length;
      if (!rebuild) continue;
      for (const event of mapper.map(group)) if (event.kind === 'message.completed') messages++;
    }
  }
  if (rebuild) for (const event of mapper.finish('done')) if (event.kind === 'message.completed') messages++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (placed !== spans.length) throw new Error(`placed ${placed} of ${spans.length} spans`);
  return { perSecond: spans.length / seconds, messages };
}

describe('live ingest with the conversation rebuilt, beside the same ingest without it', () => {
  it(`${TURNS} turns, skewed clocks, a megabyte prompt: spans per second and the ratio`, async () => {
    const spans = conversation(TURNS);
    let messages = 0;
    const runs = await interleave(REPS, {
      without: () => ingest(spans, false).perSecond,
      rebuilt: () => {
        const result = ingest(spans, true);
        messages = result.messages;
        return result.perSecond;
      },
    });
    const ratios = runs.rebuilt.map((value, i) => (runs.without[i] as number) / value);
    console.log(
      [
        `conversation ingest, ${TURNS} turns in exports of ${BATCH} (${REPS} reps, medians):`,
        `  without rebuild ${median(runs.without).toFixed(0)} spans/s`,
        `  with rebuild    ${median(runs.rebuilt).toFixed(0)} spans/s (${messages} messages: each turn once, plus the prompt)`,
        `  slowdown        ${median(ratios).toFixed(2)}x (per rep: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
      ].join('\n'),
    );
  });
});
