import { beforeEach, describe, expect, it } from 'vitest';
import { ReplayModelClient } from '../../../src-main/llm';
import { fleet, ofKind, run as startFleetRun, scripted, transcript } from '../../helpers/fleet-builders';
import { replayLlm } from './replay-helpers';

let model: ReplayModelClient;
beforeEach(() => {
  model = new ReplayModelClient();
});
const run: typeof startFleetRun = (options) => startFleetRun({ models: model.asFactory(), ...options });

/** A turn of the calculator agent: one tool call, then an answer that uses its result. */
function calculatorTurn(answer: string) {
  model.enqueue(
    { type: 'tools', calls: [{ name: 'calculator', arguments: '{"expression":"6*7"}' }] },
    { type: 'text', content: answer },
  );
}

const kinds = (events: Parameters<typeof transcript>[0]) =>
  ofKind(events, 'message.completed').map(({ payload: { message } }) => `${message.from}:${message.kind}`);

describe('max-messages counts chat messages', () => {
  it('does not count tool calls and results by default, so a turn with tools is one message', async () => {
    calculatorTurn('It is 42.');
    const { handle, events } = run({
      fleet: fleet({
        agents: [replayLlm('math', { tools: ['calculator'] }), scripted('echo', ['noted'], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 3 },
      }),
      task: 'What is 6*7?',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'max-messages' });
    expect(summary.detail).toBe('The run reached its limit of 3 messages.');
    expect(kinds(events)).toEqual(['user:task', 'math:function', 'math:tool', 'math:text', 'echo:text']);
    expect(summary.messageCount).toBe(5);
  });

  it('with countToolEvents, counts them too but still lets the turn finish with its answer', async () => {
    calculatorTurn('It is 42.');
    const { handle, events } = run({
      fleet: fleet({
        agents: [replayLlm('math', { tools: ['calculator'] }), scripted('echo', ['noted'], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 3, countToolEvents: true },
      }),
      task: 'What is 6*7?',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages');
    expect(summary.detail).toContain('tool calls and results included');
    // The limit was reached at the tool result; the model still answered it, and nobody spoke after.
    expect(kinds(events)).toEqual(['user:task', 'math:function', 'math:tool', 'math:text']);
    expect(transcript(events).at(-1)).toBe('math>*: It is 42.');
    expect(model.requests).toHaveLength(2);
  });

  it('checks at the end of each turn: a condition met by a tool call still lets the agent answer', async () => {
    model.enqueue(
      {
        type: 'tools',
        content: 'CHECKING with the calculator.',
        calls: [{ name: 'calculator', arguments: '{"expression":"6*7"}' }],
      },
      { type: 'text', content: 'It is 42.' },
    );
    const { handle, events } = run({
      fleet: fleet({
        agents: [replayLlm('math', { tools: ['calculator'] }), scripted('echo', ['noted'], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'text-mention', text: 'CHECKING' },
      }),
      task: 'What is 6*7?',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('text-mention');
    expect(kinds(events)).toEqual(['user:task', 'math:function', 'math:tool', 'math:text']);
    // One check after the task, one after the whole turn (which fired).
    expect(ofKind(events, 'termination.check').map((check) => check.payload.fired)).toEqual([false, true]);
  });
});

describe('several conditions on the same message', () => {
  it('the stop reason names each condition that fired', async () => {
    const { handle } = run({
      fleet: fleet({
        agents: [scripted('writer', ['All DONE here'])],
        team: { pattern: 'round-robin' },
        termination: {
          type: 'or',
          conditions: [
            { type: 'max-messages', max: 2 },
            { type: 'text-mention', text: 'DONE' },
            { type: 'token-budget', maxTokens: 1_000 },
          ],
        },
      }),
      task: 'Write',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages and text-mention');
    expect(summary.detail).toBe('The run reached its limit of 2 messages. writer said "DONE".');
  });
});

describe('continuing a finished run without a new task', () => {
  const chatters = () =>
    fleet({
      agents: [scripted('a', ['a speaks'], { loop: true }), scripted('b', ['b speaks'], { loop: true })],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 3 },
    });

  it('resumes the conversation: the next speaker goes on and no task message is sent', async () => {
    const { handle, events } = run({ fleet: chatters(), task: 'Talk' });
    await handle.done;
    expect(transcript(events)).toEqual(['user>*: Talk', 'a>*: a speaks', 'b>*: b speaks']);
    const resumed = await handle.continueWith();
    expect(resumed).toMatchObject({ status: 'completed', stopReason: 'max-messages', messageCount: 6 });
    expect(transcript(events).slice(3)).toEqual(['a>*: a speaks', 'b>*: b speaks', 'a>*: a speaks']);
    expect(ofKind(events, 'session.continued').map((event) => event.payload)).toEqual([
      { task: '', context: {} },
    ]);
    // A blank task is no task either.
    await handle.continueWith('   ');
    expect(transcript(events).slice(6)).toEqual(['b>*: b speaks', 'a>*: a speaks', 'b>*: b speaks']);
  });

  it('a pipeline stopped halfway goes on with its next agent; a finished one goes round again', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          scripted('writer', ['draft'], { loop: true }),
          scripted('editor', ['edited'], { loop: true }),
        ],
        team: { pattern: 'sequential' },
        termination: { type: 'max-messages', max: 2 },
      }),
      task: 'Write',
    });
    expect((await handle.done).stopReason).toBe('max-messages');
    expect(transcript(events)).toEqual(['user>writer: Write', 'writer>editor: draft']);
    expect((await handle.continueWith()).stopReason).toBe('team-finished');
    expect(transcript(events).slice(2)).toEqual(['editor>user: edited']);
    expect((await handle.continueWith()).stopReason).toBe('max-messages');
    expect(transcript(events).slice(3)).toEqual(['writer>editor: draft', 'editor>user: edited']);
  });

  it('an LLM agent resuming sees the whole conversation and no empty task', async () => {
    model.respondWith(() => ({ type: 'text', content: 'more thoughts' }));
    const { handle } = run({
      fleet: fleet({
        agents: [replayLlm('thinker')],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 2 },
      }),
      task: 'Think',
    });
    await handle.done;
    await handle.continueWith();
    const resumedPrompt = model.requests[1]?.messages ?? [];
    expect(resumedPrompt.map((message) => `${message.role}: ${message.content}`)).toEqual([
      'system: You are thinker.',
      'user: Think',
      'assistant: more thoughts',
    ]);
  });
});
