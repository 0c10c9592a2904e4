import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { SessionListItem } from '@shared/contract';
import { setBridge } from '../../../src-renderer/bridge/current';
import { useFleetsStore } from '../../../src-renderer/builder/fleets-store';
import { createFakeBridge } from '../../helpers/fake-bridge';

const snapshot = {
  version: 1,
  name: 'Debate',
  agents: [{ name: 'pro', type: 'scripted', script: [{ content: 'yes' }] }],
  team: { pattern: 'sequential' },
};

/** A traced supervisor's session: the parent is its sub-agent's team, with its own prompt and model. */
const traced = {
  version: 1,
  name: 'Supervisor',
  agents: [
    {
      name: 'Supervisor',
      type: 'team',
      systemPrompt: 'You are Supervisor.',
      provider: { id: 'openai', model: 'gpt-4o-mini' },
      fleet: {
        version: 1,
        name: 'Supervisor',
        agents: [{ name: 'Researcher', type: 'llm', provider: { id: 'openai', model: 'gpt-4o-mini' } }],
        team: { pattern: 'sequential', order: ['Researcher'] },
      },
    },
  ],
  team: { pattern: 'sequential', order: ['Supervisor'] },
};

/** The saved fleets `fleets.list` answers with. */
function backend(listed: Array<{ id: string; name: string }> = []) {
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'sessions.get') {
      const id = (input as { id: string }).id;
      const summary: SessionListItem = {
        id,
        title: 'A debate',
        task: 'Tea or coffee?',
        fleetName: 'Debate',
        status: 'completed',
        stopReason: 'done',
        createdAt: 1,
        updatedAt: 2,
        endedAt: 2,
        messageCount: 1,
        tokens: 0,
        parentSessionId: null,
        forkSeq: null,
        tags: [],
        source: id === 'imported' ? 'openai' : 'fleetscope',
        readOnly: id === 'imported',
        durationMs: 1,
      };
      const fleet = id === 'imported' ? null : id === 'traced' ? traced : snapshot;
      return { ok: true, value: { summary, fleet } };
    }
    if (channel === 'fleets.save') {
      return {
        ok: true,
        value: {
          id: 'f-1',
          name: 'Debate (fork)',
          description: '',
          example: false,
          scripted: true,
          agentCount: 1,
          pattern: 'sequential',
          updatedAt: 1,
        },
      };
    }
    if (channel === 'fleets.list') {
      const value = listed.map(({ id, name }) => ({
        id,
        name,
        description: '',
        example: id.startsWith('example:'),
        scripted: true,
        agentCount: 1,
        pattern: 'sequential',
        updatedAt: 1,
      }));
      return { ok: true, value };
    }
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return fake;
}

describe('the fleets store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('forks the fleet a session ran with into a new saved fleet', async () => {
    const fake = backend();
    const fork = await useFleetsStore().forkFromSession('s-1');
    expect(fork?.id).toBe('f-1');
    expect(fake.calls.find((call) => call.channel === 'fleets.save')?.input).toEqual({
      fleet: { ...snapshot, name: 'Debate (fork)' },
    });
  });

  it('names the fleet the session ran as the copy source, so its MCP secrets carry over', async () => {
    const fake = backend([
      { id: 'other', name: 'Other' },
      { id: 'saved-debate', name: 'Debate' },
    ]);
    await useFleetsStore().forkFromSession('s-1');
    expect(fake.calls.find((call) => call.channel === 'fleets.save')?.input).toEqual({
      copyOf: 'saved-debate',
      fleet: { ...snapshot, name: 'Debate (fork)' },
    });
  });

  it("gives a traced parent's team a lead that runs the parent's own prompt and model", async () => {
    const fake = backend();
    await useFleetsStore().forkFromSession('traced');
    const saved = fake.calls.find((call) => call.channel === 'fleets.save')?.input as {
      fleet: typeof traced;
    };
    const team = saved.fleet.agents[0];
    expect(saved.fleet.name).toBe('Supervisor (fork)');
    expect(team).not.toHaveProperty('systemPrompt');
    expect(team?.fleet.team).toEqual({
      pattern: 'parallel',
      workers: ['Researcher'],
      aggregator: 'Supervisor-lead',
    });
    expect(team?.fleet.agents[1]).toEqual({
      name: 'Supervisor-lead',
      type: 'llm',
      description: '',
      systemPrompt: 'You are Supervisor.',
      provider: { id: 'openai', model: 'gpt-4o-mini' },
    });
  });

  it('explains why an imported session cannot be forked', async () => {
    backend();
    const store = useFleetsStore();
    expect(await store.forkFromSession('imported')).toBeNull();
    expect(store.error).toContain('no fleet to fork');
  });

  it('refuses a file that is not JSON or not a fleet, without saving', async () => {
    const fake = backend();
    const store = useFleetsStore();
    expect(await store.importText('{nope', 'a.json')).toBeNull();
    expect(store.error).toContain('a.json is not JSON');
    expect(
      await store.importText(
        '{"version":1,"name":"x","agents":[],"team":{"pattern":"sequential"}}',
        'b.json',
      ),
    ).toBeNull();
    expect(store.error).toContain('b.json is not a valid fleet');
    expect(fake.calls.some((call) => call.channel === 'fleets.save')).toBe(false);
  });
});
