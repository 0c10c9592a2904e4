import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { defineComponent, h } from 'vue';
import type { FleetInput } from '@shared/domain';
import AgentInspector from '../../../src-renderer/builder/AgentInspector.vue';
import { useBuilderStore } from '../../../src-renderer/builder/builder-store';
import { useProvidersStore } from '../../../src-renderer/builder/providers-store';
import { builderBackend } from './backend';

const fleet: FleetInput = {
  version: 1,
  name: 'Pair',
  agents: [
    { name: 'writer', type: 'llm', role: 'writer', provider: { id: 'openai', model: 'gpt-4o-mini' } },
    { name: 'bot', type: 'scripted', script: [{ content: 'hello' }] },
  ],
  team: { pattern: 'round-robin', order: ['writer', 'bot'] },
  termination: { type: 'text-mention', text: 'DONE', sources: ['writer'] },
};

async function setup(selected: string) {
  const fake = builderBackend();
  const providers = useProvidersStore();
  await providers.load();
  const store = useBuilderStore();
  store.open('fleet-1', fleet);
  store.selected = [selected];
  const Host = defineComponent({
    setup: () => () => (store.selectedAgent ? h(AgentInspector, { agent: store.selectedAgent }) : null),
  });
  const view = mount(Host);
  await flushPromises();
  return {
    fake,
    store,
    view,
    agent: () => store.current!.agents.find((agent) => agent.name === store.selected[0])!,
  };
}

describe('the agent inspector', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('edits role, description and system prompt of the selected agent', async () => {
    const { view, agent } = await setup('writer');
    await view.get('[data-testid="inspector-role"]').setValue('editor');
    await view.get('[data-testid="inspector-description"]').setValue('Polishes prose');
    await view.get('[data-testid="inspector-prompt"]').setValue('Be brief.');
    expect(agent()).toMatchObject({
      role: 'editor',
      description: 'Polishes prose',
      systemPrompt: 'Be brief.',
    });
  });

  it('renames an agent everywhere and refuses a name that cannot be an address', async () => {
    const { view, store } = await setup('writer');
    const name = view.get('[data-testid="inspector-name"]');
    await name.setValue('2 bad name');
    await name.trigger('change');
    expect(view.get('[role="alert"]').text()).toContain('must start with a letter');
    expect(store.current!.agents[0]!.name).toBe('writer');
    await name.setValue('bot');
    await name.trigger('change');
    expect(view.get('[role="alert"]').text()).toContain('already named "bot"');
    await name.setValue('author');
    await name.trigger('change');
    expect(store.current!.team).toEqual({ pattern: 'round-robin', order: ['author', 'bot'] });
    expect(store.current!.termination).toEqual({ type: 'text-mention', text: 'DONE', sources: ['author'] });
    expect(store.selected).toEqual(['author']);
  });

  it('switches provider to a preset with its URL and default model, and lists models the provider reports', async () => {
    const { view, agent, fake } = await setup('writer');
    const options = view.findAll('[data-testid="inspector-provider"] option').map((option) => option.text());
    expect(options).toEqual(['Choose…', 'Scripted (built in)', 'OpenAI (no key)', 'Ollama']);
    await view.get('[data-testid="inspector-provider"]').setValue('ollama');
    await flushPromises();
    expect(agent().provider).toEqual({
      id: 'ollama',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2',
    });
    expect(fake.calls.some((call) => call.channel === 'providers.test')).toBe(true);
    expect(view.findAll('datalist option').map((option) => option.attributes('value'))).toEqual([
      'llama3.2',
      'qwen2.5',
    ]);
    await view.get('[data-testid="inspector-temperature"]').setValue('0.3');
    await view.get('[data-testid="inspector-max-tokens"]').setValue('512');
    expect(agent().provider).toMatchObject({ temperature: 0.3, maxTokens: 512 });
    await view.get('[data-testid="inspector-temperature"]').setValue('');
    expect(agent().provider?.temperature).toBeUndefined();
  });

  it('offers the registry tools, the message kinds and own broadcasts', async () => {
    const { view, agent } = await setup('writer');
    expect(view.findAll('[data-testid^="tool-"]').map((box) => box.attributes('data-testid'))).toEqual([
      'tool-calculator',
      'tool-current_time',
      'tool-read_file',
    ]);
    await view.get('[data-testid="tool-calculator"]').setValue(true);
    expect(agent().tools).toEqual(['calculator']);
    await view.get('[data-testid="kind-code"]').setValue(false);
    expect(agent().acceptedKinds).not.toContain('code');
    await view.get('[data-testid="inspector-own-broadcasts"]').setValue(true);
    expect(agent().receiveOwnBroadcasts).toBe(true);
  });

  it('edits the canned replies of a scripted agent', async () => {
    const { view, agent } = await setup('bot');
    expect(view.find('[data-testid="inspector-prompt"]').exists()).toBe(false);
    await view.get('[data-testid="script-add"]').trigger('click');
    await view.get('[data-testid="script-reply-1"]').setValue('second');
    expect(agent().script).toEqual([{ content: 'hello' }, { content: 'second' }]);
  });

  it('undoes a run of typing in one field as one step', async () => {
    const { view, store, agent } = await setup('writer');
    const role = view.get('[data-testid="inspector-role"]');
    await role.setValue('e');
    await role.setValue('ed');
    await role.setValue('edi');
    store.undo();
    expect(agent().role).toBe('writer');
    store.redo();
    expect(agent().role).toBe('edi');
  });
});
