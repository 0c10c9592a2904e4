import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { FleetInput } from '@shared/domain';
import { contractApp } from '../../helpers/contract-app';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

describe('sessions.context: what filled an agent context window', () => {
  let stub: OpenAiStub;
  const { call, fail, runToEnd } = contractApp('test', { watchStore: false });

  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());

  it('breaks a model call into the parts the orchestrator sent, provider counts beside estimates', async () => {
    stub.enqueue(
      { type: 'text', content: 'A first draft of the plan.', usage: { prompt: 40, completion: 7 } },
      { type: 'text', content: 'Looks good to me.', usage: { prompt: 61, completion: 5 } },
      { type: 'text', content: 'Final plan, revised.', usage: { prompt: 75, completion: 6 } },
    );
    const provider = { id: 'custom', baseUrl: stub.baseUrl, model: 'gpt-4o-mini' };
    const fleet: FleetInput = {
      version: 1,
      name: 'Pair',
      agents: [
        { name: 'writer', type: 'llm', systemPrompt: 'You write plans.', provider },
        { name: 'critic', type: 'llm', systemPrompt: 'You criticise plans.', provider },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 4 },
    };
    const sessionId = await runToEnd(fleet, 'Plan a picnic');
    const { items } = await call('sessions.messages', { id: sessionId });
    const last = items.findLast((message) => message.from === 'writer');
    expect(last?.content).toBe('Final plan, revised.');

    const context = await call('sessions.context', { id: sessionId, messageId: last!.id });
    expect(context.agent).toBe('writer');
    expect(context.model).toBe('gpt-4o-mini');
    expect(context.windowTokens).toBe(128_000);
    expect(context.reportedPromptTokens).toBe(75);
    expect(context.note).toBeNull();
    // The request the stub received for that call, turn by turn.
    const request = stub.chatRequests()[2]!.body!;
    expect(context.parts.map((part) => part.kind)).toEqual(['system', 'task', 'own', 'message']);
    expect(context.parts.length).toBe(request.messages?.length);
    expect(context.parts[0]).toMatchObject({
      sender: null,
      estimated: true,
      tokens: countTokens('You write plans.'),
    });
    expect(context.parts[1]).toMatchObject({
      sender: 'user',
      estimated: true,
      tokens: countTokens('Plan a picnic'),
    });
    // Its own first reply, as its provider counted it.
    expect(context.parts[2]).toMatchObject({ sender: 'writer', estimated: false, tokens: 7 });
    // The critic's reply reads as a user turn naming its sender: its provider's count and the name.
    expect(context.parts[3]).toMatchObject({
      sender: 'critic',
      estimated: false,
      tokens: 5 + countTokens('critic: '),
    });
    // Counted turns are read without their text; the parts shown still preview it.
    expect(context.parts.map((part) => part.preview)).toEqual([
      'You write plans.',
      'Plan a picnic',
      'A first draft of the plan.',
      'critic: Looks good to me.',
    ]);
    const sum = context.parts.reduce((total, part) => total + part.tokens, 0);
    expect(context.countedTokens).toBe(sum);
    expect(context.estimatedTokens).toBe(countTokens('You write plans.') + countTokens('Plan a picnic'));
    expect(context.groups.map((group) => [group.kind, group.sender, group.parts])).toEqual([
      ['system', null, 1],
      ['task', 'user', 1],
      ['own', 'writer', 1],
      ['message', 'critic', 1],
    ]);

    // The first call was shown only the system prompt and the task.
    const first = await call('sessions.context', { id: sessionId, messageId: items[1]!.id });
    expect(first.parts.map((part) => part.kind)).toEqual(['system', 'task']);
  });

  it('shows what a scripted agent would have been shown, and says a person used no model', async () => {
    const fleet: FleetInput = {
      version: 1,
      name: 'Scripted',
      agents: [
        { name: 'a', type: 'scripted', script: [{ content: 'one' }, { content: 'three' }] },
        { name: 'b', type: 'scripted', script: [{ content: 'two' }, { content: 'DONE' }] },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'text-mention', text: 'DONE' },
    };
    const sessionId = await runToEnd(fleet, 'Count');
    const { items } = await call('sessions.messages', { id: sessionId });
    const task = await call('sessions.context', { id: sessionId, messageId: items[0]!.id });
    expect(task.note).toMatch(/person/);
    expect(task.parts).toEqual([]);
    const three = items.find((message) => message.content === 'three')!;
    const context = await call('sessions.context', { id: sessionId, messageId: three.id });
    expect(context.note).toMatch(/scripted agent and calls no model/);
    expect(context.model).toBeNull();
    expect(context.parts.map((part) => [part.kind, part.sender])).toEqual([
      ['system', null],
      ['task', 'user'],
      ['own', 'a'],
      ['message', 'b'],
    ]);
  });

  it('refuses an unknown message with a clear error', async () => {
    const fleet: FleetInput = {
      version: 1,
      name: 'One',
      agents: [{ name: 'a', type: 'scripted', script: [{ content: 'done' }] }],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 2 },
    };
    const sessionId = await runToEnd(fleet, 'Go');
    const error = await fail('sessions.context', { id: sessionId, messageId: 'no-such-message' });
    expect(error).toMatchObject({ code: 'not-found' });
    expect(error.message).toMatch(/no message "no-such-message"/);
  });
});
