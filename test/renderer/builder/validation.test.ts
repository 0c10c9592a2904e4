import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { FleetInput } from '@shared/domain';
import IssueList from '../../../src-renderer/builder/IssueList.vue';
import BuilderToolbar from '../../../src-renderer/builder/BuilderToolbar.vue';
import { useBuilderStore } from '../../../src-renderer/builder/builder-store';
import { useProvidersStore } from '../../../src-renderer/builder/providers-store';
import { builderBackend } from './backend';

const valid: FleetInput = {
  version: 1,
  name: 'Swarm',
  agents: [
    { name: 'triage', type: 'scripted', script: [{ content: 'hi' }] },
    { name: 'coder', type: 'llm', provider: { id: 'ollama', model: 'llama3.2' } },
  ],
  team: { pattern: 'swarm', start: 'triage', handoffs: { triage: ['coder'] } },
  termination: { type: 'max-messages', max: 6 },
};

async function setup() {
  const fake = builderBackend();
  await useProvidersStore().load();
  const store = useBuilderStore();
  store.open('fleet-1', valid);
  const issues = mount(IssueList);
  const toolbar = mount(BuilderToolbar);
  await flushPromises();
  const saves = () => fake.calls.filter((call) => call.channel === 'fleets.save').length;
  return { store, issues, toolbar, saves };
}

describe('validation as you edit', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('lists nothing and enables Run for a valid fleet', async () => {
    const { issues, toolbar, store } = await setup();
    expect(issues.get('[data-testid="no-issues"]').text()).toContain('can run');
    expect(store.canRun).toBe(true);
    expect(toolbar.get('[data-testid="builder-run"]').attributes('disabled')).toBeUndefined();
  });

  it('flags duplicate names and a missing model on the agent, disables Run, and clears when fixed', async () => {
    const { store, issues, toolbar } = await setup();
    store.rename('coder', 'triage');
    store.updateAgent('triage', {});
    await flushPromises();
    expect(store.issues.errors.map((issue) => issue.message)).toContain(
      'another agent is already named "triage"',
    );
    expect(toolbar.get('[data-testid="builder-run"]').attributes('disabled')).toBeDefined();
    store.undo();
    store.updateAgent('coder', { provider: { id: 'ollama', model: '' } });
    await flushPromises();
    expect(store.issuesByAgent.get('coder')).toEqual(['needs a model name']);
    expect(issues.get('[data-testid="error-count"]').text()).toBe('1');
    expect(issues.get('[data-testid="issue-error"]').text()).toContain('coder');
    store.updateAgent('coder', { provider: { id: 'ollama', model: 'qwen2.5' } });
    await flushPromises();
    expect(store.issues.errors).toEqual([]);
    expect(store.canRun).toBe(true);
  });

  it('flags handoffs and routes to nowhere', async () => {
    const { store } = await setup();
    store.edit((fleet) => {
      if (fleet.team.pattern === 'swarm') fleet.team.handoffs.coder = ['ghost'];
    });
    expect(store.issues.errors.map((issue) => issue.message)).toContain(
      'handoff target "ghost" is not an agent in this fleet',
    );
    store.edit((fleet) => {
      fleet.team = {
        pattern: 'selector',
        rules: [{ contains: 'bug', candidates: ['nobody'] }],
        allowRepeatedSpeaker: false,
      };
    });
    expect(store.issues.errors.map((issue) => issue.message)).toContain(
      'candidate "nobody" is not an agent in this fleet',
    );
  });

  it('flags an empty nested team, inside and from the top', async () => {
    const { store } = await setup();
    store.edit((fleet) => {
      fleet.agents.push({
        name: 'crew',
        type: 'team',
        description: '',
        role: '',
        systemPrompt: '',
        tools: [],
        acceptedKinds: ['text'],
        receiveOwnBroadcasts: false,
        fleet: {
          version: 1,
          name: 'Crew',
          description: '',
          agents: [],
          team: { pattern: 'sequential' },
          layout: {},
        },
      });
    });
    expect(store.issuesByAgent.get('crew')?.length).toBeGreaterThan(0);
    store.enter('crew');
    expect(store.issues.errors.some((issue) => issue.path === 'agents')).toBe(true);
  });

  it('warns when no termination condition is set, with the default cap', async () => {
    const { store } = await setup();
    store.setTermination(undefined);
    expect(store.issues.warnings.map((issue) => issue.message)).toEqual([
      'no termination condition: the run stops after 50 messages',
    ]);
    expect(store.canRun).toBe(true);
  });

  it('autosaves once after a burst of valid edits, and never while invalid', async () => {
    const { store, saves } = await setup();
    store.setInfo({ name: 'A' });
    store.setInfo({ name: 'AB' });
    store.setInfo({ name: 'ABC' });
    expect(store.saveState).toBe('dirty');
    await vi.advanceTimersByTimeAsync(1000);
    expect(saves()).toBe(1);
    expect(store.saveState).toBe('saved');
    store.setInfo({ name: '' });
    expect(store.saveState).toBe('invalid');
    await vi.advanceTimersByTimeAsync(1000);
    expect(saves()).toBe(1);
  });
});
