import { beforeEach, describe, expect, it } from 'vitest';
import type { FleetInput } from '@shared/domain';
import { ReplayModelClient } from '../../../src-main/llm';
import { fleet, ofKind, run as startFleetRun, scripted, transcript } from '../../helpers/fleet-builders';
import { promptOf, replayLlm as llm, speakerOf } from './replay-helpers';

// Nesting is about scopes, threads and outcomes; models answer from a replay client (no HTTP).
let model: ReplayModelClient;
beforeEach(() => {
  model = new ReplayModelClient((request) => ({ type: 'text', content: `${speakerOf(request)} reviewed` }));
});
const run: typeof startFleetRun = (options) => startFleetRun({ models: model.asFactory(), ...options });

const reviewTeam = (): FleetInput => ({
  version: 1,
  name: 'review',
  agents: [llm('coder'), llm('critic')],
  team: { pattern: 'sequential' },
});

describe('a team used as an agent', () => {
  it('runs the nested fleet on the message it received and replies with its result', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          scripted('lead', ['Please build a parser']),
          { name: 'squad', type: 'team', fleet: reviewTeam() },
          llm('boss'),
        ],
        team: { pattern: 'sequential' },
      }),
      task: 'Ship a parser',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'team-finished' });
    expect(transcript(events)).toEqual([
      'user>lead: Ship a parser',
      'lead>squad: Please build a parser',
      'squad>squad/coder: Please build a parser',
      'squad/coder>squad/critic: coder reviewed',
      'squad/critic>squad: critic reviewed',
      'squad>boss: critic reviewed',
      'boss>user: boss reviewed',
    ]);
    const result = ofKind(events, 'message.completed')[5]?.payload.message;
    expect(result).toMatchObject({ kind: 'result', meta: { nestedStop: 'team-finished' } });
    expect(promptOf(model.requests[2])).toContain('squad: critic reviewed');
    const threads = new Set(
      ofKind(events, 'message.completed').map((event) => event.payload.message.threadId),
    );
    expect(threads.size).toBe(1);
    expect(ofKind(events, 'agent.status').some((event) => event.agent === 'squad/coder')).toBe(true);
  });

  it('ends the nested run by its own termination and lets the outer run go on', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [
          {
            name: 'debate',
            type: 'team',
            fleet: {
              version: 1,
              name: 'inner',
              agents: [scripted('pro', ['yes'], { loop: true }), scripted('con', ['no'], { loop: true })],
              team: { pattern: 'round-robin' },
              termination: { type: 'max-messages', max: 4 },
            },
          },
          scripted('judge', ['pro wins']),
        ],
        team: { pattern: 'sequential' },
      }),
      task: 'Debate',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('team-finished');
    expect(transcript(events)).toContain('debate/pro>*: yes');
    expect(transcript(events)).toContain(
      'debate>judge: (debate ended without a reply: The run reached its limit of 4 messages.)',
    );
    expect(transcript(events).at(-1)).toBe('judge>user: pro wins');
  });

  it('a failure inside the nested team fails the whole run', async () => {
    model.respondWith(() => ({
      type: 'error',
      code: 'server-error',
      message: 'provider "custom" had a server error (500).',
    }));
    const { handle } = run({
      fleet: fleet({
        agents: [{ name: 'squad', type: 'team', fleet: reviewTeam() }],
        team: { pattern: 'sequential' },
      }),
      task: 'go',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(summary.detail).toContain('coder');
  });

  it('cancelling aborts the nested team too', async () => {
    model.respondWith(() => ({ type: 'hang', content: 'thinking' }));
    const { handle, events } = run({
      fleet: fleet({
        agents: [{ name: 'squad', type: 'team', fleet: reviewTeam() }],
        team: { pattern: 'sequential' },
      }),
      task: 'go',
    });
    await expect.poll(() => ofKind(events, 'message.delta').length).toBeGreaterThan(0);
    handle.stop();
    expect(await handle.done).toMatchObject({ status: 'stopped', stopReason: 'cancelled' });
  });
});
