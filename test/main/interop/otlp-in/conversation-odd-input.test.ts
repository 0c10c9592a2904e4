import { describe, expect, it } from 'vitest';
import type { Message } from '@shared/domain';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { SessionMapper } from '../../../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../../../src-main/interop/span-mapping/span-index';
import type { TraceSpan } from '../../../../src-main/interop/span-mapping/span';
import { json, messagesInLogOrder, span } from './span-builders';

/**
 * The conversation rebuilt from model calls alone, fed in batches as a receiver gets them: which
 * speaker an input is traced to must not depend on how the spans were cut into batches or ordered.
 */
function rebuild(batches: TraceSpan[][]): string[] {
  const index = new SpanIndex({ holdMs: 10_000, retainMs: Infinity, maxSpans: Infinity });
  const all = batches.flat();
  const mapper = new SessionMapper(Math.min(...all.map((s) => s.startMs)));
  const events: ImportedEvent[] = [];
  for (const batch of batches) {
    index.add(batch, 0);
    for (const group of index.drain(0).values()) events.push(...mapper.map(group));
  }
  for (const group of index.drain(0, true).values()) events.push(...mapper.map(group));
  events.push(...mapper.finish('done'));
  return events
    .flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message as Message] : []))
    .map((m) => `${m.from} -> ${m.to}: ${m.content}`)
    .sort();
}

/** As `rebuild`, each batch on its own, the messages in the order the log started them. */
function rebuildInOrder(batches: TraceSpan[][]): string[] {
  const mapper = new SessionMapper(Math.min(...batches.flat().map((s) => s.startMs)));
  const index = new SpanIndex({ holdMs: 0, retainMs: Infinity, maxSpans: Infinity });
  const events: ImportedEvent[] = [];
  for (const batch of batches) {
    index.add(batch, 0);
    for (const group of index.drain(0, true).values()) events.push(...mapper.map(group));
  }
  events.push(...mapper.finish('done'));
  return messagesInLogOrder(events).map((m) => `${m.from} -> ${m.to}: ${m.content}`);
}

let nextId = 1;
/** A model call of `agent` (its agent span and the LLM span under it), sent `inputs`, answering `output`. */
function call(
  agent: string,
  start: number,
  inputs: Array<{ role: string; content: string; name?: string }>,
  output: string,
) {
  const agentId = nextId++;
  const llmId = nextId++;
  return [
    span(
      agentId,
      null,
      `agent ${agent}`,
      start,
      start + 100,
      { 'openinference.span.kind': 'AGENT', 'agent.name': agent, 'session.id': 'odd' },
      processOf(agent),
    ),
    span(
      llmId,
      agentId,
      'chat',
      start + 10,
      start + 90,
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': json(
          inputs.map((m) => ({ role: m.role, name: m.name, parts: [{ type: 'text', content: m.content }] })),
        ),
        'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: output }] }]),
      },
      processOf(agent),
    ),
  ];
}

/** Each agent runs in a process of its own: its spans carry that process's resource. */
const processOf = (agent: string) => ({ resource: { 'service.name': `process-${agent}` } });

/**
 * A span of `agent`'s process with no agent meaning, exported before anything else: the session
 * has then shown that process, so an input no one said yet waits for it (TranscriptState.processes).
 */
const seenBefore = (agent: string) => [
  span(nextId++, null, 'startup', -60_000, -59_990, { 'session.id': 'odd' }, processOf(agent)),
];

const SAME = 'Agreed, we should book the venue before the end of the month.';

describe('odd input to the conversation rebuild', () => {
  it('two agents saying the same words: both kept, the input traced to the one who spoke last before it, whatever the batches or order', () => {
    const spans = [
      ...call('Alpha', 0, [{ role: 'user', content: 'Should we book the venue soon, Alpha?' }], SAME),
      ...call('Beta', 1_000, [{ role: 'user', content: 'Should we book the venue soon, Beta?' }], SAME),
      ...call('Carol', 2_000, [{ role: 'user', content: SAME }], 'Booked it for the 28th, deposit paid.'),
    ];
    const expected = [
      'Alpha -> user: ' + SAME,
      'Beta -> Carol: ' + SAME,
      'Carol -> user: Booked it for the 28th, deposit paid.',
      'user -> Alpha: Should we book the venue soon, Alpha?',
      'user -> Beta: Should we book the venue soon, Beta?',
    ];
    expect(rebuild([spans])).toEqual(expected);
    expect(rebuild([[...spans].reverse()])).toEqual(expected);
    // Live: one span per batch, in start order and in reverse.
    expect(rebuild(spans.map((s) => [s]))).toEqual(expected);
    expect(rebuild([spans.slice(0, 4), spans.slice(4)])).toEqual(expected);
  });

  it('spans out of order and resent history: each sentence once, from its speaker', () => {
    const task = 'Write the invitation for the summer party at the lake.';
    const a1 = 'Draft: join us at the lake on the 28th for food, music and a swim.';
    const b1 = 'Tighten it: drop the swim and name the time, from five in the evening.';
    const a2 = 'Join us at the lake on the 28th from five in the evening for food and music.';
    const spans = [
      ...call('Writer', 0, [{ role: 'user', content: task }], a1),
      ...call(
        'Reviewer',
        1_000,
        [
          { role: 'user', content: task },
          { role: 'user', content: `Writer wrote:\n\n  ${a1.toUpperCase()}` },
        ],
        b1,
      ),
      ...call(
        'Writer',
        2_000,
        [
          { role: 'user', content: task },
          { role: 'assistant', content: a1 },
          { role: 'user', content: b1 },
        ],
        a2,
      ),
    ];
    const expected = [
      `Reviewer -> Writer: ${b1}`,
      `Writer -> Reviewer: ${a1}`,
      `Writer -> user: ${a2}`,
      `user -> Writer: ${task}`,
    ];
    expect(rebuild([spans])).toEqual(expected);
    expect(rebuild([[...spans].reverse()])).toEqual(expected);
    // Live, each model call before its agent span (exporters send a parent after its children).
    const llmFirst = [1, 0, 3, 2, 5, 4].map((i) => [spans[i] as TraceSpan]);
    expect(rebuild(llmFirst)).toEqual(expected);
  });

  it('clock skew between processes: a reply stamped before what it answers is still traced to its speaker', () => {
    const ask = 'Which date works for the venue visit next week?';
    const a1 = 'Tuesday afternoon works, the venue confirmed two o clock for us.';
    const b1 = 'Booked Tuesday at two; I will send the invitation to everyone.';
    // Beta runs in another process whose clock is 5 s behind: its call starts "before" Alpha spoke.
    const spans = [
      ...call('Alpha', 10_000, [{ role: 'user', content: ask }], a1),
      ...call('Beta', 10_500 - 5_000, [{ role: 'user', content: a1 }], b1),
    ];
    const expected = [`Alpha -> Beta: ${a1}`, `Beta -> user: ${b1}`, `user -> Alpha: ${ask}`];
    // Spans that reach the mapper together (one export, or held for their parents), either order.
    expect(rebuild([spans])).toEqual(expected);
    expect(rebuild([[...spans].reverse()])).toEqual(expected);
    // Each process exports its own spans, in either order (the hearer's first once the session has
    // shown the speaker's process; before that, with no hint, its input is the user's).
    const alpha = spans.slice(0, spans.length / 2);
    const beta = spans.slice(spans.length / 2);
    expect(rebuild([alpha, beta])).toEqual(expected);
    expect(rebuild([seenBefore('Alpha'), beta, alpha])).toEqual(expected);
  });

  it("the hearer's export first: its input waits for the speaker's, and the log keeps the order things were said in", () => {
    const ask = 'Which caterer should we book for the dinner on the 14th?';
    const a1 = 'The one from the harbour: they did the last dinner well and have the 14th free.';
    const b1 = 'Booked the harbour caterer for the 14th, forty people, vegetarian options included.';
    const c1 = 'Confirmed with the venue that the caterer can bring their own kitchen staff in.';
    const alpha = call('Alpha', 0, [{ role: 'user', content: ask }], a1);
    // Beta's input names its sender, as OpenAI-style messages can (`name`); Carol's names no one.
    const beta = call('Beta', 1_000, [{ role: 'user', name: 'Alpha', content: a1 }], b1);
    const carol = call('Carol', 2_000, [{ role: 'user', content: b1 }], c1);
    const expected = [
      `user -> Alpha: ${ask}`,
      `Alpha -> Beta: ${a1}`,
      `Beta -> Carol: ${b1}`,
      `Carol -> user: ${c1}`,
    ];
    expect(rebuildInOrder([seenBefore('Alpha'), carol, beta, alpha])).toEqual(expected);
    expect(rebuildInOrder([seenBefore('Alpha'), beta, carol, alpha])).toEqual(expected);
    expect(rebuildInOrder([alpha, beta, carol])).toEqual(expected);
    // The user's task is the user's, and a name no span ever speaks for is that sender's.
    expect(rebuildInOrder([beta])).toEqual([`Alpha -> Beta: ${a1}`, `Beta -> user: ${b1}`]);
    // A long text (looked at again whole only, not searched for quotes each batch) alike.
    const report = `The full report: ${'every venue, its price and its dates, one line each. '.repeat(100)}`;
    const reader = call('Reader', 3_000, [{ role: 'user', content: report }], c1);
    expect(
      rebuildInOrder([
        seenBefore('Writer'),
        reader,
        call('Writer', 2_500, [{ role: 'user', content: ask }], report),
      ]),
    ).toEqual([`user -> Writer: ${ask}`, `Writer -> Reader: ${report}`, `Reader -> user: ${c1}`]);
  });

  it('a megabyte prompt is kept whole, and resent it is not repeated', () => {
    const big = `Summarise this log: ${'line of the build log with a timestamp and a status\n'.repeat(20_000)}`;
    expect(big.length).toBeGreaterThan(1_000_000);
    const a1 = 'The build failed twice on the network step and passed on the third try.';
    const b1 = 'So the flaky step is the network fetch; pin the mirror and retry once.';
    const spans = [
      ...call('Reader', 0, [{ role: 'user', content: big }], a1),
      ...call(
        'Fixer',
        1_000,
        [
          { role: 'user', content: big },
          { role: 'user', content: a1 },
        ],
        b1,
      ),
    ];
    const lines = rebuild([spans]);
    expect(lines).toHaveLength(3);
    expect(lines).toContain(`user -> Reader: ${big}`);
    expect(lines).toContain(`Reader -> Fixer: ${a1}`);
    expect(lines).toContain(`Fixer -> user: ${b1}`);
  });
});
