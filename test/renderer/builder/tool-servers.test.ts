import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { defineComponent, h } from 'vue';
import type { FleetInput } from '@shared/domain';
import ToolServersPanel from '../../../src-renderer/builder/ToolServersPanel.vue';
import AgentInspector from '../../../src-renderer/builder/AgentInspector.vue';
import { useBuilderStore } from '../../../src-renderer/builder/builder-store';
import { useProvidersStore } from '../../../src-renderer/builder/providers-store';
import { builderBackend } from './backend';

const MARKER = '[masked mcpServers.web.headers.Authorization]';
const fleet: FleetInput = {
  version: 1,
  name: 'Scouts',
  agents: [{ name: 'scout', type: 'llm', role: 'reader', provider: { id: 'openai', model: 'gpt-4o-mini' } }],
  team: { pattern: 'sequential' },
  mcpServers: { web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: MARKER } } },
};

async function setup() {
  const fake = builderBackend();
  await useProvidersStore().load();
  const store = useBuilderStore();
  store.open('fleet-1', fleet);
  const Host = defineComponent({
    setup: () => () =>
      h('div', [
        h(ToolServersPanel),
        store.selectedAgent ? h(AgentInspector, { agent: store.selectedAgent }) : null,
      ]),
  });
  const view = mount(Host, { attachTo: document.body });
  await flushPromises();
  return { fake, store, view };
}

describe('the builder’s MCP servers', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('adds a stdio server, tests it, and lets an agent tick one of its tools', async () => {
    const { view, store, fake } = await setup();
    await view.get('[data-testid="tool-server-add"]').trigger('click');
    expect(document.activeElement).toBe(view.get('[data-testid="server-name"]').element);
    await view.get('[data-testid="server-name"]').setValue('files');
    await view.get('[data-testid="server-command"]').setValue('npx');
    await view
      .get('[data-testid="server-args"]')
      .setValue('-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes');
    await view.get('[data-testid="tool-server-form"]').trigger('submit');
    expect(store.root?.mcpServers?.files).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
      env: {},
    });
    const files = view.get('[data-server="files"][data-testid="tool-server"]');
    await files.get('[data-testid="tool-server-test"]').trigger('click');
    await flushPromises();
    expect(files.get('[data-testid="tool-server-outcome"]').text()).toContain('2 tools');
    expect(files.findAll('[data-testid="tool-server-tool"]').map((tool) => tool.text())).toEqual([
      expect.stringContaining('read_text_file'),
      expect.stringContaining('list_directory'),
    ]);
    const tested = fake.calls.find((call) => call.channel === 'fleets.testToolServer');
    expect(tested?.input).toMatchObject({ name: 'files', server: { command: 'npx' } });

    store.selected = ['scout'];
    await flushPromises();
    await view.get('[data-testid="tool-files/read_text_file"]').setValue(true);
    expect(store.root?.agents[0]?.tools).toEqual(['files/read_text_file']);
    await view.get('[data-testid="tool-web/*"]').setValue(true);
    expect(store.root?.agents[0]?.tools).toEqual(['files/read_text_file', 'web/*']);
    view.unmount();
  });

  it('shows why a server did not start; secrets stay markers behind password fields', async () => {
    const { view, store } = await setup();
    const web = view.get('[data-server="web"][data-testid="tool-server"]');
    await web.get('[data-testid="tool-server-test"]').trigger('click');
    await flushPromises();
    expect(web.get('[data-testid="tool-server-error"]').text()).toContain('did not start: spawn nope ENOENT');
    await web.get('[data-testid="tool-server-edit"]').trigger('click');
    const secret = view.get('[data-testid="server-secret"]');
    expect(secret.attributes('type')).toBe('password');
    expect((secret.element as HTMLInputElement).value).toBe(MARKER);
    await view.get('[data-testid="server-url"]').setValue('not a url');
    await view.get('[data-testid="tool-server-form"]').trigger('submit');
    expect(view.get('[data-testid="server-problem"]').text()).toContain('http://');
    expect(store.root?.mcpServers?.web).toMatchObject({ url: 'http://127.0.0.1:9/mcp' });
    view.unmount();
  });

  it('renaming a server carries agents’ ticks; removing it drops them', async () => {
    const { view, store } = await setup();
    store.updateAgent('scout', { tools: ['web/*', 'calculator'] });
    await flushPromises();
    await view.get('[data-testid="tool-server-edit"]').trigger('click');
    await view.get('[data-testid="server-name"]').setValue('search');
    await view.get('[data-testid="tool-server-form"]').trigger('submit');
    expect(Object.keys(store.root?.mcpServers ?? {})).toEqual(['search']);
    expect(store.root?.mcpServers?.search).toMatchObject({ headers: { Authorization: MARKER } });
    expect(store.root?.agents[0]?.tools).toEqual(['search/*', 'calculator']);
    await view.get('[data-testid="tool-server-remove"]').trigger('click');
    expect(store.root?.mcpServers).toBeUndefined();
    expect(store.root?.agents[0]?.tools).toEqual(['calculator']);
    expect(view.find('[data-testid="tool-servers-empty"]').exists()).toBe(true);
    view.unmount();
  });
});
