import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleet, llm, ofKind, run, scripted, transcript } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { agentOf, promptTexts, toolNames } from '../../helpers/stub-agents';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith((request) => ({ type: 'text', content: `${agentOf(request)} speaking` }));
});

describe('sequential pipeline', () => {
  it('passes each reply to the next agent and the last one answers the user', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('writer', stub.baseUrl), llm('reviewer', stub.baseUrl), llm('editor', stub.baseUrl)],
        team: { pattern: 'sequential' },
      }),
      task: 'Write a haiku',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'team-finished', messageCount: 4 });
    expect(transcript(events)).toEqual([
      'user>writer: Write a haiku',
      'writer>reviewer: writer speaking',
      'reviewer>editor: reviewer speaking',
      'editor>user: editor speaking',
    ]);
    const reviewerPrompt = promptTexts(stub.chatRequests()[1]!);
    expect(reviewerPrompt).toContain('writer: writer speaking');
    expect(reviewerPrompt.join('\n')).not.toContain('Write a haiku');
  });

  it('streams every reply as deltas between message.started and message.completed', async () => {
    stub.respondWith(() => ({ type: 'text', content: 'a fairly long streamed reply', chunkSize: 3 }));
    const { handle, events } = run({
      fleet: fleet({ agents: [llm('solo', stub.baseUrl)], team: { pattern: 'sequential' } }),
      task: 'go',
    });
    await handle.done;
    const started = ofKind(events, 'message.started').find((event) => event.payload.from === 'solo');
    const deltas = ofKind(events, 'message.delta').filter(
      (event) => event.payload.messageId === started?.payload.messageId,
    );
    expect(deltas.length).toBe(Math.ceil('a fairly long streamed reply'.length / 3));
    expect(deltas.map((event) => event.payload.text).join('')).toBe('a fairly long streamed reply');
    const completed = ofKind(events, 'message.completed').find(
      (event) => event.payload.message.id === started?.payload.messageId,
    );
    expect(completed?.seq).toBeGreaterThan(deltas.at(-1)?.seq ?? Infinity);
    expect(completed?.payload.message.usage?.completion).toBeGreaterThan(0);
    expect(ofKind(events, 'agent.status').map((event) => event.payload.status)).toEqual([
      'thinking',
      'thinking',
      'streaming',
      'idle',
    ]);
  });
});

describe('round-robin group chat', () => {
  it('cycles speakers in order, each seeing the whole conversation', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('ann', stub.baseUrl), llm('ben', stub.baseUrl), llm('cat', stub.baseUrl)],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 6 },
      }),
      task: 'Discuss',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages');
    expect(stub.chatRequests().map(agentOf)).toEqual(['ann', 'ben', 'cat', 'ann', 'ben']);
    expect(
      transcript(events)
        .slice(1)
        .every((line) => line.includes('>*:')),
    ).toBe(true);
    const annSecond = stub.chatRequests()[3]!.body?.messages ?? [];
    expect(annSecond.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
  });

  it('follows a custom order', async () => {
    const { handle } = run({
      fleet: fleet({
        agents: [llm('ann', stub.baseUrl), llm('ben', stub.baseUrl)],
        team: { pattern: 'round-robin', order: ['ben', 'ann'] },
        termination: { type: 'max-messages', max: 4 },
      }),
      task: 'Discuss',
    });
    await handle.done;
    expect(stub.chatRequests().map(agentOf)).toEqual(['ben', 'ann', 'ben']);
  });
});

describe('selector', () => {
  it('routes by the routing table and records each decision', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          scripted('planner', ['There is a BUG in login']),
          scripted('fixer', [{ content: 'patched', kind: 'code' }]),
          scripted('tester', ['all green']),
        ],
        team: {
          pattern: 'selector',
          rules: [
            { contains: 'bug', candidates: ['fixer'] },
            { kind: 'code', candidates: ['tester'] },
          ],
          fallback: 'planner',
        },
        termination: { type: 'source-match', sources: ['tester'] },
      }),
      task: 'Triage the report',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('source-match');
    const decisions = ofKind(events, 'routing.decision').map((event) => event.payload);
    expect(decisions.map((decision) => decision.chosen)).toEqual(['planner', 'fixer', 'tester']);
    expect(decisions[0]?.reason).toContain('fallback planner');
    expect(decisions[1]?.reason).toContain('rule 1 (contains "bug") matched');
    expect(decisions[2]?.reason).toContain('rule 2 (kind code) matched');
  });

  it('lets the selector model pick from the descriptions', async () => {
    stub.respondWith((request) => {
      const prompt = promptTexts(request).join('\n');
      if (prompt.includes('Who speaks next?')) return { type: 'text', content: 'poet' };
      return { type: 'text', content: `${agentOf(request)} here` };
    });
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          llm('poet', stub.baseUrl, { description: 'writes verse' }),
          llm('critic', stub.baseUrl, { description: 'judges verse' }),
        ],
        team: { pattern: 'selector', selector: { id: 'custom', baseUrl: stub.baseUrl, model: 'stub-model' } },
        termination: { type: 'max-messages', max: 2 },
      }),
      task: 'A poem please',
    });
    await handle.done;
    const selectorPrompt = promptTexts(stub.chatRequests()[0]!).join('\n');
    expect(selectorPrompt).toContain('- poet: writes verse');
    expect(selectorPrompt).toContain('- critic: judges verse');
    const [decision] = ofKind(events, 'routing.decision');
    expect(decision?.payload).toMatchObject({ chosen: 'poet', candidates: ['poet', 'critic'] });
    expect(decision?.payload.reason).toContain('the selector model chose poet');
    expect(transcript(events)[1]).toBe('poet>*: poet here');
  });

  it('falls back when the selector model fails or names nobody', async () => {
    stub.enqueue({ type: 'text', content: 'nobody in particular' });
    stub.respondWith((request) => {
      const prompt = promptTexts(request).join('\n');
      if (prompt.includes('Who speaks next?')) return { type: 'error', status: 500 };
      return { type: 'text', content: `${agentOf(request)} here` };
    });
    const { handle, events } = run({
      maxRetries: 0,
      fleet: fleet({
        agents: [llm('poet', stub.baseUrl), llm('critic', stub.baseUrl)],
        team: {
          pattern: 'selector',
          selector: { id: 'custom', baseUrl: stub.baseUrl, model: 'stub-model' },
          fallback: 'critic',
        },
        termination: { type: 'max-messages', max: 3 },
      }),
      task: 'A poem please',
    });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    const reasons = ofKind(events, 'routing.decision').map((event) => event.payload);
    expect(reasons[0]?.chosen).toBe('critic');
    expect(reasons[0]?.reason).toContain('names no candidate');
    expect(reasons[1]?.reason).toContain('the selector model failed');
    expect(reasons[1]?.chosen).toBe('critic');
  });
});

describe('swarm', () => {
  it('offers transfer tools, hands off on a call and ends on a handoff to the user', async () => {
    stub.respondWith((request) => {
      const agent = agentOf(request);
      const hasSpoken = (request.body?.messages ?? []).some((message) => message.role === 'assistant');
      if (agent === 'triage')
        return { type: 'tools', calls: [{ name: 'transfer_to_billing', arguments: '{}' }] };
      if (agent === 'billing' && !hasSpoken) {
        return { type: 'text', content: 'Your refund is on its way.' };
      }
      return { type: 'tools', calls: [{ name: 'transfer_to_user', arguments: '{}' }] };
    });
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('triage', stub.baseUrl), llm('billing', stub.baseUrl)],
        team: { pattern: 'swarm', start: 'triage', handoffs: { triage: ['billing'], billing: ['user'] } },
        termination: {
          type: 'or',
          conditions: [
            { type: 'handoff', target: 'user' },
            { type: 'max-messages', max: 20 },
          ],
        },
      }),
      task: 'I want a refund',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('handoff');
    expect(toolNames(stub.chatRequests()[0]!)).toEqual(['transfer_to_billing']);
    expect(toolNames(stub.chatRequests()[1]!)).toEqual(['transfer_to_user']);
    expect(ofKind(events, 'handoff').map((event) => `${event.payload.from}->${event.payload.to}`)).toEqual([
      'triage->billing',
      'billing->user',
    ]);
    const handoffs = ofKind(events, 'message.completed').filter(
      (event) => event.payload.message.kind === 'handoff',
    );
    expect(handoffs.map((event) => event.payload.message.to)).toEqual(['billing', 'user']);
    expect(transcript(events)).toContain('billing>*: Your refund is on its way.');
  });

  it('hands off with scripted replies too', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          scripted('front', [{ content: 'Passing you on', handoff: 'expert' }]),
          scripted('expert', ['Solved.']),
        ],
        team: { pattern: 'swarm', start: 'front' },
        termination: { type: 'text-mention', text: 'Solved' },
      }),
      task: 'Help',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('text-mention');
    expect(ofKind(events, 'handoff')[0]?.payload).toMatchObject({ from: 'front', to: 'expert' });
    expect(transcript(events).at(-1)).toBe('expert>*: Solved.');
  });
});

describe('parallel fan-out / fan-in', () => {
  it('runs the workers concurrently and gives all their answers to the aggregator', async () => {
    // No worker gets its reply until all three worker requests are in flight at the same time. A
    // team that waited for one worker before asking the next would never open this gate; the
    // fallback only keeps such a failure from hanging, it is not a speed target.
    const workers = new Set<string>();
    let openGate: (allInFlight: boolean) => void = () => undefined;
    const gate = new Promise<boolean>((resolve) => (openGate = resolve));
    const fallback = setTimeout(() => openGate(false), 5_000);
    stub.respondWith(async (request) => {
      const agent = agentOf(request);
      if (agent === 'summary') return { type: 'text', content: 'combined' };
      workers.add(agent);
      if (workers.size === 3) openGate(true);
      await gate;
      return { type: 'text', content: `${agent} finding`, chunkSize: 2, delayMs: 15 };
    });
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          llm('web', stub.baseUrl),
          llm('papers', stub.baseUrl),
          llm('code', stub.baseUrl),
          llm('summary', stub.baseUrl),
        ],
        team: { pattern: 'parallel', workers: ['web', 'papers', 'code'], aggregator: 'summary' },
      }),
      task: 'Research agents',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('team-finished');
    const requests = stub.chatRequests();
    expect(requests.slice(0, 3).map(agentOf).sort()).toEqual(['code', 'papers', 'web']);
    clearTimeout(fallback);
    // All three worker requests were in flight together: the gate opened before any was answered.
    await expect(gate).resolves.toBe(true);
    const aggregatorPrompt = promptTexts(requests[3]!);
    expect(aggregatorPrompt).toEqual(
      expect.arrayContaining([
        'Research agents',
        'web: web finding',
        'papers: papers finding',
        'code: code finding',
      ]),
    );
    expect(transcript(events).at(-1)).toBe('summary>user: combined');
    const workerReplies = ofKind(events, 'message.completed').filter(
      (event) => event.payload.message.to === 'summary',
    );
    expect(workerReplies).toHaveLength(3);
  });
});
