import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { modelCallList } from '../../../../src-main/app/services/model-calls';
import type { TraceSpan } from '../../../../src-main/interop/span-mapping/span';
import { json, mapSpans, span } from './span-builders';

type Turn = { role: string; content: string };

/** A chat call by `agent` sending `messages` and answered with `answer`. */
function chat(id: number, start: number, agent: string, messages: Turn[], answer: string): TraceSpan {
  return span(id, null, 'chat gpt-4o', start, start + 100, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.agent.name': agent,
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 10 * id,
    'gen_ai.usage.output_tokens': 5,
    'gen_ai.input.messages': json(
      messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] })),
    ),
    'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
  });
}

describe('the raw model calls of a traced session', () => {
  const system = { role: 'system', content: 'You are terse.' };
  const first = { role: 'user', content: 'Name a colour.' };
  const second = { role: 'user', content: 'Another one.' };
  const third = { role: 'user', content: 'And a third.' };
  const spans = [
    chat(1, 0, 'Painter', [system, first], 'Red.'),
    chat(2, 200, 'Painter', [system, first, { role: 'assistant', content: 'Red.' }, second], 'Blue.'),
    chat(
      3,
      400,
      'Painter',
      [
        system,
        first,
        { role: 'assistant', content: 'Red.' },
        second,
        { role: 'assistant', content: 'Blue.' },
        third,
      ],
      'Green.',
    ),
    chat(4, 600, 'Critic', [{ role: 'user', content: 'Red, Blue, Green: judge.' }], 'Fine.'),
  ];

  it('a chat that resends its history is stored by what is new, and read back whole', () => {
    const events = mapSpans(spans);
    const stored = events.flatMap((event) => (event.kind === 'model.call' ? [event.payload] : []));
    // Stored: each call's new messages only, and how many it sent again of its agent's previous call.
    expect(stored.map((call) => call.inputs.map((input) => input.text))).toEqual([
      ['You are terse.', 'Name a colour.'],
      ['Another one.'],
      ['And a third.'],
      ['Red, Blue, Green: judge.'],
    ]);
    expect(stored.map((call) => call.sentAgain?.count ?? 0)).toEqual([0, 3, 5, 0]);

    const list = modelCallList(events, 0, 50);
    expect(list.total).toBe(4);
    expect(list.nextOffset).toBeNull();
    const third = list.calls[2];
    expect(third?.agent).toBe('Painter');
    expect(third?.inputs.map((input) => `${input.role}: ${input.text}`)).toEqual([
      'system: You are terse.',
      'user: Name a colour.',
      'assistant: Red.',
      'user: Another one.',
      'assistant: Blue.',
      'user: And a third.',
    ]);
    expect(third?.sentAgain).toBe(5);
    expect(third?.outputs.map((output) => output.text)).toEqual(['Green.']);
    expect(third?.usage).toMatchObject({ prompt: 30, completion: 5, model: 'gpt-4o' });
    expect(third?.model).toBe('gpt-4o');
    // Another agent's call starts a history of its own.
    expect(list.calls[3]?.agent).toBe('Critic');
    expect(list.calls[3]?.sentAgain).toBe(0);
  });

  it('pages by offset and limit, expanding the calls before the page all the same', () => {
    const events = mapSpans(spans);
    const page = modelCallList(events, 1, 2);
    expect(page.total).toBe(4);
    expect(page.nextOffset).toBe(3);
    expect(page.calls.map((call) => call.outputs[0]?.text)).toEqual(['Blue.', 'Green.']);
    expect(page.calls[1]?.inputs).toHaveLength(6);
  });

  it('a failed call is listed with why, and a session with no model calls lists none', () => {
    const failed = chat(1, 0, 'Painter', [first], '');
    failed.attributes['gen_ai.output.messages'] = json([]);
    failed.status = { code: 2, message: 'rate limited' };
    const list = modelCallList(mapSpans([failed]), 0, 50);
    expect(list.calls).toHaveLength(1);
    expect(list.calls[0]?.error).toBe('rate limited');
    expect(list.calls[0]?.outputs).toEqual([]);
    const own: RunEvent[] = [
      { sessionId: 's', seq: 1, t: 0, agent: 'a', kind: 'agent.status', payload: { status: 'idle' } },
    ];
    expect(modelCallList(own, 0, 50)).toEqual({ calls: [], total: 0, nextOffset: null });
  });
});
