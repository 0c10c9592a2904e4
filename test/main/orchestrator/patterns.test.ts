import { beforeEach, describe, expect, it } from 'vitest';
import { ReplayModelClient } from '../../../src-main/llm';
import { fleet, ofKind, run as startFleetRun, scripted, transcript } from '../../helpers/fleet-builders';
import {
  isSelectorQuestion,
  promptOf,
  REPLAY_SELECTOR,
  replayLlm as llm,
  speakerOf,
  toolsOf,
} from './replay-helpers';

// Team patterns are about who speaks when; the model's HTTP transport is tested against the stub
// server elsewhere (llm-agent, faults, run-control), so these runs get canned replies.
let model: ReplayModelClient;
beforeEach(() => {
  model = new ReplayModelClient((request) => ({ type: 'text', content: `${speakerOf(request)} speaking` }));
});
const run: typeof startFleetRun = (options) => startFleetRun({ models: model.asFactory(), ...options });

describe('sequential pipeline', () => {
  it('passes each reply to the next agent and the last one answers the user', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('writer'), llm('reviewer'), llm('editor')],
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
    const reviewerPrompt = promptOf(model.requests[1]);
    expect(reviewerPrompt).toContain('writer: writer speaking');
    expect(reviewerPrompt.join('\n')).not.toContain('Write a haiku');
  });

  it('streams every reply as deltas between message.started and message.completed', async () => {
    model.respondWith(() => ({ type: 'text', content: 'a fairly long streamed reply', chunkSize: 3 }));
    const { handle, events } = run({
      fleet: fleet({ agents: [llm('solo')], team: { pattern: 'sequential' } }),
      task: 'go',
    });
    await handle.done;
    const started = ofKind(events, 'message.started').find((event) => event.payload.from === 'solo');
    const deltas = ofKind(events, 'message.delta').filter(
      (event) => event.payload.messageId === started?.payload.messageId,
    );
    // The stub's 3-character pieces arrive together, so they are recorded as fewer deltas
    // (never more than the pieces), which add up to the reply.
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThanOrEqual(Math.ceil('a fairly long streamed reply'.length / 3));
    expect(deltas.map((event) => event.payload.text).join('')).toBe('a fairly long streamed reply');
    const completed = ofKind(events, 'message.completed').find(
      (event) => event.payload.message.id === started?.payload.messageId,
    );
    expect(completed?.seq).toBeGreaterThan(deltas.at(-1)?.seq ?? Infinity);
    expect(completed?.payload.message.usage?.completion).toBeGreaterThan(0);
    // A status is recorded when it changes (the turn and the model call both say "thinking").
    expect(ofKind(events, 'agent.status').map((event) => event.payload.status)).toEqual([
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
        agents: [llm('ann'), llm('ben'), llm('cat')],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 6 },
      }),
      task: 'Discuss',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages');
    expect(model.requests.map(speakerOf)).toEqual(['ann', 'ben', 'cat', 'ann', 'ben']);
    expect(
      transcript(events)
        .slice(1)
        .every((line) => line.includes('>*:')),
    ).toBe(true);
    const annSecond = model.requests[3]?.messages ?? [];
    expect(annSecond.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
  });

  it('follows a custom order', async () => {
    const { handle } = run({
      fleet: fleet({
        agents: [llm('ann'), llm('ben')],
        team: { pattern: 'round-robin', order: ['ben', 'ann'] },
        termination: { type: 'max-messages', max: 4 },
      }),
      task: 'Discuss',
    });
    await handle.done;
    expect(model.requests.map(speakerOf)).toEqual(['ben', 'ann', 'ben']);
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
    model.respondWith((request) =>
      isSelectorQuestion(request)
        ? { type: 'text', content: 'poet' }
        : { type: 'text', content: `${speakerOf(request)} here` },
    );
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          llm('poet', { description: 'writes verse' }),
          llm('critic', { description: 'judges verse' }),
        ],
        team: { pattern: 'selector', selector: REPLAY_SELECTOR },
        termination: { type: 'max-messages', max: 2 },
      }),
      task: 'A poem please',
    });
    await handle.done;
    const selectorPrompt = promptOf(model.requests[0]).join('\n');
    expect(selectorPrompt).toContain('- poet: writes verse');
    expect(selectorPrompt).toContain('- critic: judges verse');
    const [decision] = ofKind(events, 'routing.decision');
    expect(decision?.payload).toMatchObject({ chosen: 'poet', candidates: ['poet', 'critic'] });
    expect(decision?.payload.reason).toContain('the selector model chose poet');
    expect(transcript(events)[1]).toBe('poet>*: poet here');
  });

  it('falls back when the selector model fails or names nobody', async () => {
    model.enqueue({ type: 'text', content: 'nobody in particular' });
    model.respondWith((request) =>
      isSelectorQuestion(request)
        ? { type: 'error', code: 'server-error', message: 'provider "custom" had a server error (500).' }
        : { type: 'text', content: `${speakerOf(request)} here` },
    );
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('poet'), llm('critic')],
        team: { pattern: 'selector', selector: REPLAY_SELECTOR, fallback: 'critic' },
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
  it('records every selector model failure as a recoverable error event and goes on with the fallback', async () => {
    model.respondWith((request) =>
      isSelectorQuestion(request)
        ? {
            type: 'error',
            code: 'connection',
            message: 'Could not reach provider "custom": connection refused.',
          }
        : { type: 'text', content: `${speakerOf(request)} here` },
    );
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('poet'), llm('critic')],
        team: { pattern: 'selector', selector: REPLAY_SELECTOR },
        termination: { type: 'max-messages', max: 3 },
      }),
      task: 'A poem please',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'max-messages' });
    const errors = ofKind(events, 'error').map((event) => event.payload);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toEqual({
      code: 'selector-failed',
      message:
        'The selector model failed, so poet speaks next instead: Could not reach provider "custom": connection refused.',
      messageId: null,
    });
    expect(errors[1]?.message).toContain('so critic speaks next instead');
    expect(transcript(events).slice(1)).toEqual(['poet>*: poet here', 'critic>*: critic here']);
  });
});

describe('swarm', () => {
  it('offers transfer tools, hands off on a call and ends on a handoff to the user', async () => {
    model.respondWith((request) => {
      const agent = speakerOf(request);
      const hasSpoken = request.messages.some((message) => message.role === 'assistant');
      if (agent === 'triage')
        return { type: 'tools', calls: [{ name: 'transfer_to_billing', arguments: '{}' }] };
      if (agent === 'billing' && !hasSpoken) {
        return { type: 'text', content: 'Your refund is on its way.' };
      }
      return { type: 'tools', calls: [{ name: 'transfer_to_user', arguments: '{}' }] };
    });
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('triage'), llm('billing')],
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
    expect(toolsOf(model.requests[0])).toEqual(['transfer_to_billing']);
    expect(toolsOf(model.requests[1])).toEqual(['transfer_to_user']);
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
    model.respondWith(async (request) => {
      const agent = speakerOf(request);
      if (agent === 'summary') return { type: 'text', content: 'combined' };
      workers.add(agent);
      if (workers.size === 3) openGate(true);
      await gate;
      return { type: 'text', content: `${agent} finding`, chunkSize: 2 };
    });
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('web'), llm('papers'), llm('code'), llm('summary')],
        team: { pattern: 'parallel', workers: ['web', 'papers', 'code'], aggregator: 'summary' },
      }),
      task: 'Research agents',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('team-finished');
    const requests = model.requests;
    expect(requests.slice(0, 3).map(speakerOf).sort()).toEqual(['code', 'papers', 'web']);
    clearTimeout(fallback);
    // All three worker requests were in flight together: the gate opened before any was answered.
    await expect(gate).resolves.toBe(true);
    const aggregatorPrompt = promptOf(requests[3]);
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
