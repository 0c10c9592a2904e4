import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { defineComponent, h } from 'vue';
import type { ChannelName, Family, ForkInput, Result, SessionListItem } from '@shared/contract';
import type { Fleet, Message } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import { useBranchesStore } from '../../src-renderer/branches/branches-store';
import { useSessionStore } from '../../src-renderer/session/session-store';
import ForkEditor from '../../src-renderer/branches/ForkEditor.vue';
import BranchBar from '../../src-renderer/branches/BranchBar.vue';
import MessageItem from '../../src-renderer/transcript/MessageItem.vue';
import SessionsView from '../../src-renderer/sessions/SessionsView.vue';
import { provideForkAction } from '../../src-renderer/branches/fork-action';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog } from './session-fixture';
import { rowProps } from './message-row';

const writers: Fleet = {
  version: 1,
  name: 'writers',
  description: '',
  agents: ['writer', 'critic'].map((name) => ({
    name,
    type: 'llm' as const,
    description: '',
    role: '',
    systemPrompt: `You are the ${name}.`,
    provider: { id: 'openai', model: 'gpt-4o', temperature: 0.5 },
    tools: [],
    acceptedKinds: ['text'],
    receiveOwnBroadcasts: false,
  })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 6 },
  layout: {},
};

function listItem(id: string, overrides: Partial<SessionListItem> = {}): SessionListItem {
  return {
    id,
    title: id,
    task: 'Write',
    fleetName: 'writers',
    status: 'completed',
    stopReason: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    endedAt: Date.now(),
    messageCount: 4,
    tokens: 10,
    parentSessionId: null,
    forkSeq: null,
    tags: [],
    source: 'run',
    readOnly: false,
    durationMs: 100,
    forkOf: null,
    family: { rootId: id, size: 1, forks: 0 },
    ...overrides,
  };
}

function familyNode(id: string, parentId: string | null, atMessage: number | null, label = '') {
  return {
    sessionId: id,
    parentId,
    forkOf: parentId && atMessage ? { sessionId: parentId, atMessage } : null,
    title: `Title ${id}`,
    status: 'completed' as const,
    stopReason: 'max messages',
    messageCount: 6,
    createdAt: 1,
    depth: parentId ? 1 : 0,
    forks: 0,
    label,
    changes: [],
  };
}

const family: Family = {
  rootId: 'root',
  sessionId: 'fork1',
  nodes: [
    familyNode('root', null, null),
    familyNode('fork1', 'root', 3, 'message 3 edited'),
    familyNode('fork2', 'root', 2, 'writer: model llama3'),
  ],
  truncated: false,
};

type Answers = Partial<Record<ChannelName, (input: never) => Result<unknown>>>;

/** A backend answering the channels the fork editor and the trees call; `answers` overrides. */
function backend(answers: Answers = {}, events: EventLog = new EventLog()) {
  const defaults: Answers = {
    'sessions.get': () => ({ ok: true, value: { summary: listItem('s1'), fleet: writers } }),
    'runs.resumeCheck': () => ({
      ok: true,
      value: {
        sessionId: 's1',
        resumable: true,
        reason: null,
        live: false,
        unmappedAgents: [],
        imported: false,
      },
    }),
    'providers.list': () => ({
      ok: true,
      value: {
        providers: [],
        keyStorage: { kind: 'environment', writable: false, message: '', weak: false },
      },
    }),
    'tools.list': () => ({ ok: true, value: [] }),
    'branches.fork': (input: ForkInput) => ({
      ok: true,
      value: {
        sessionId: 'fork-new',
        forkOf: { sessionId: input.sessionId, atMessage: input.atMessage },
        label: input.text ? `message ${input.atMessage} edited` : 'same as parent',
        changes: [],
        running: input.run !== false,
      },
    }),
    'branches.family': () => ({ ok: true, value: family }),
    'sessions.events': (input: { afterSeq: number }) => ({
      ok: true,
      value: {
        events: events.events.filter((event) => event.seq > input.afterSeq),
        lastSeq: events.events.length,
      },
    }),
    'fleets.list': () => ({ ok: true, value: [] }),
  };
  const fake = createFakeBridge((channel, input) => {
    const answer = answers[channel] ?? defaults[channel];
    return answer
      ? answer(input as never)
      : { ok: false, error: { code: 'unknown-channel', message: `no answer for ${channel}` } };
  });
  setBridge(fake.bridge);
  return fake;
}

// Views (and the key listeners they add) go away after each test.
enableAutoUnmount(afterEach);

const forkCalls = (fake: ReturnType<typeof backend>) =>
  fake.calls.filter((call) => call.channel === 'branches.fork').map((call) => call.input as ForkInput);

async function openEditor(
  request: Partial<Parameters<ReturnType<typeof useBranchesStore>['openEditor']>[0]> = {},
) {
  const view = mount(ForkEditor, { attachTo: document.body });
  await useBranchesStore().openEditor({
    sessionId: 's1',
    atMessage: 3,
    from: 'writer',
    text: 'A first draft.',
    speakers: ['writer', 'critic'],
    ...request,
  });
  await flushPromises();
  return view;
}

describe('the fork editor', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    window.location.hash = '#/sessions/s1';
  });
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('forks at the message with its text edited and runs, then opens the fork', async () => {
    const fake = backend();
    const view = await openEditor();
    expect(view.get('[data-testid="fork-editor"]').attributes('data-at-message')).toBe('3');
    const text = view.get<HTMLTextAreaElement>('[data-testid="fork-text"]');
    expect(text.element.value).toBe('A first draft.');
    await text.setValue('A bolder draft.');
    expect(view.get('[data-testid="fork-changes"]').text()).toContain('message 3 edited');
    await view.get('[data-testid="fork-run"]').trigger('click');
    await flushPromises();
    expect(forkCalls(fake)).toEqual([{ sessionId: 's1', atMessage: 3, run: true, text: 'A bolder draft.' }]);
    expect(view.find('[data-testid="fork-editor"]').exists()).toBe(false);
    expect(window.location.hash).toBe('#/sessions/fork-new');
  });

  it("changes an agent's model, temperature and the stop conditions, and saves without running", async () => {
    const fake = backend();
    const view = await openEditor();
    await view.get('[data-testid="fork-agent-select"]').setValue('critic');
    const fields = view.get('[data-testid="fork-agent-fields"]');
    expect(fields.attributes('data-agent')).toBe('critic');
    expect(fields.get<HTMLTextAreaElement>('[data-testid="fork-system-prompt"]').element.value).toBe(
      'You are the critic.',
    );
    await fields.get('[data-testid="fork-model"]').setValue('llama3');
    await fields.get('[data-testid="fork-temperature"]').setValue('');
    await view.get('[data-testid="fork-save"]').trigger('click');
    await flushPromises();
    expect(forkCalls(fake)).toEqual([
      {
        sessionId: 's1',
        atMessage: 3,
        run: false,
        agents: [{ agent: 'critic', model: 'llama3', temperature: null }],
      },
    ]);
  });

  it('says in words what is wrong with a value and sends nothing', async () => {
    const fake = backend();
    const view = await openEditor();
    await view.get('[data-testid="fork-agent-select"]').setValue('writer');
    await view.get('[data-testid="fork-temperature"]').setValue('7');
    await view.get('[data-testid="fork-run"]').trigger('click');
    await flushPromises();
    expect(view.get('[data-testid="fork-problems"]').text()).toBe(
      'writer: temperature must be between 0 and 2.',
    );
    expect(forkCalls(fake)).toEqual([]);
  });

  it("shows the backend's refusal as a sentence and keeps the draft", async () => {
    backend({
      'branches.fork': () => ({
        ok: false,
        error: { code: 'not-found', message: 'Session s1 has no message 3.' },
      }),
    });
    const view = await openEditor();
    await view.get('[data-testid="fork-run"]').trigger('click');
    await flushPromises();
    expect(view.get('[data-testid="fork-problems"]').text()).toBe(
      'Could not fork: Session s1 has no message 3.',
    );
    expect(view.find('[data-testid="fork-editor"]').exists()).toBe(true);
  });

  it('disables Run with the reason for an imported session whose agents have no provider', async () => {
    const fake = backend({
      'sessions.get': () => ({
        ok: true,
        value: { summary: listItem('s1', { readOnly: true }), fleet: null },
      }),
      'runs.resumeCheck': () => ({
        ok: true,
        value: {
          sessionId: 's1',
          resumable: false,
          reason: 'No provider',
          live: false,
          unmappedAgents: ['alice'],
          imported: true,
        },
      }),
    });
    const view = await openEditor({ from: 'alice', speakers: ['alice'] });
    const run = view.get<HTMLButtonElement>('[data-testid="fork-run"]');
    expect(run.element.disabled).toBe(true);
    expect(view.get('[data-testid="fork-run-blocked"]').text()).toMatch(
      /choose a provider and a model for alice/,
    );
    expect(view.get('[data-testid="fork-needs-provider"]').text()).toContain('alice');
    // The agent to map is chosen already; mapping it enables Run.
    await view.get('[data-testid="fork-provider"]').setValue('ollama');
    await view.get('[data-testid="fork-model"]').setValue('llama3');
    expect(run.element.disabled).toBe(false);
    await run.trigger('click');
    await flushPromises();
    expect(forkCalls(fake)).toEqual([
      {
        sessionId: 's1',
        atMessage: 3,
        run: true,
        agents: [{ agent: 'alice', provider: 'ollama', model: 'llama3' }],
      },
    ]);
  });

  it('closes on Escape without forking', async () => {
    const fake = backend();
    const view = await openEditor();
    await view.get('[data-testid="fork-text"]').trigger('keydown', { key: 'Escape' });
    expect(view.find('[data-testid="fork-editor"]').exists()).toBe(false);
    expect(useBranchesStore().draft).toBeNull();
    expect(forkCalls(fake)).toEqual([]);
  });
});

/** A transcript message inside a session view's fork action, as the session view provides it. */
const ForkHost = defineComponent({
  props: { message: { type: Object as () => Message, required: true } },
  setup(props) {
    provideForkAction();
    return () => h(MessageItem, rowProps(props.message));
  },
});

describe('Fork here in the session view', () => {
  beforeEach(() => setActivePinia(createPinia()));
  afterEach(() => {
    document.body.innerHTML = '';
  });

  /** An open session with three messages, and a message item inside a fork-action provider. */
  async function session() {
    const log = new EventLog().start();
    const task = log.say('task', 'user', 'writer', ['Write a haiku']);
    const draft = log.say('m2', 'writer', 'critic', ['Old pond']);
    log.say('m3', 'critic', 'writer', ['Too short']);
    log.stop();
    const fake = backend({}, log);
    await useSessionStore().open('s1');
    await flushPromises();
    return { fake, task, draft, Host: ForkHost };
  }

  it('opens the editor at the message clicked, with its number as show prints it', async () => {
    const { fake, draft, Host } = await session();
    const view = mount(Host, { props: { message: draft }, attachTo: document.body });
    const button = view.get('[data-testid="fork-here"]');
    expect(button.attributes('disabled')).toBeUndefined();
    await button.trigger('click');
    await flushPromises();
    const branches = useBranchesStore();
    expect(branches.draft).toMatchObject({ sessionId: 's1', atMessage: 2, from: 'writer', text: 'Old pond' });
    expect(fake.calls.map((call) => call.channel)).toContain('runs.resumeCheck');
  });

  it('is disabled with the reason on a message still being written', async () => {
    const { draft, Host } = await session();
    const view = mount(Host, {
      props: { message: { ...draft, state: 'streaming' } },
      attachTo: document.body,
    });
    const button = view.get('[data-testid="fork-here"]');
    expect(button.attributes('disabled')).toBeDefined();
    expect(button.attributes('title')).toMatch(/still being written/);
  });

  it('is disabled with the reason while the session is still running', async () => {
    const log = new EventLog().start();
    const task = log.say('task', 'user', 'writer', ['Write a haiku']);
    backend({}, log);
    await useSessionStore().open('s1');
    const view = mount(ForkHost, { props: { message: task }, attachTo: document.body });
    const button = view.get('[data-testid="fork-here"]');
    expect(button.attributes('disabled')).toBeDefined();
    expect(button.attributes('title')).toMatch(/still running: stop it/);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'f' }));
    await flushPromises();
    expect(useBranchesStore().draft).toBeNull();
  });

  it('F forks at the replay playhead', async () => {
    const { task, Host } = await session();
    mount(Host, { props: { message: task }, attachTo: document.body });
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'f' }));
    await flushPromises();
    expect(useBranchesStore().draft).toMatchObject({ atMessage: 3, from: 'critic', text: 'Too short' });
  });

  it('runs a fork saved without running, and says why a session cannot resume', async () => {
    const log = new EventLog().start();
    log.say('task', 'user', 'writer', ['Write a haiku']);
    log.stop('stopped', 'forked');
    let check = { resumable: true, reason: null as string | null };
    const fake = backend(
      {
        'sessions.get': () => ({
          ok: true,
          value: { summary: listItem('s1', { status: 'stopped', stopReason: 'forked' }), fleet: writers },
        }),
        'runs.resumeCheck': () => ({
          ok: true,
          value: { sessionId: 's1', ...check, live: false, unmappedAgents: [], imported: false },
        }),
        'runs.continue': () => ({ ok: true, value: { sessionId: 's1' } }),
      },
      log,
    );
    await useSessionStore().open('s1');
    const view = mount(BranchBar, { props: { sessionId: 's1' }, attachTo: document.body });
    await flushPromises();
    const button = view.get('[data-testid="resume-run"]');
    expect(button.text()).toContain('Run this fork');
    await button.trigger('click');
    await flushPromises();
    expect(fake.calls.find((call) => call.channel === 'runs.continue')?.input).toEqual({
      sessionId: 's1',
      task: '',
      context: {},
    });

    check = { resumable: false, reason: 'Its agents have no provider: alice.' };
    await useBranchesStore().loadFamily('s1');
    await flushPromises();
    expect(view.get('[data-testid="resume-run"]').attributes('disabled')).toBeDefined();
    expect(view.get('[data-testid="resume-reason"]').text()).toBe('Its agents have no provider: alice.');
  });

  it('has no Fork button outside a session view', () => {
    const log = new EventLog().start();
    const message = log.say('m1', 'user', 'writer', ['hi']);
    const view = mount(MessageItem, {
      props: rowProps(message),
    });
    expect(view.find('[data-testid="fork-here"]').exists()).toBe(false);
  });
});

describe('the family tree', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    window.location.hash = '#/sessions/fork1';
  });
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it("shows the session's branches labelled with their fork points and jumps between them", async () => {
    const fake = backend();
    const view = mount(BranchBar, { props: { sessionId: 'fork1' }, attachTo: document.body });
    await flushPromises();
    expect(fake.calls.find((call) => call.channel === 'branches.family')?.input).toEqual({ id: 'fork1' });
    expect(view.get('[data-testid="branches-button"]').text()).toContain('3');
    expect(view.get('[data-testid="fork-origin"]').text()).toMatch(
      /fork of\s+Title root\s+at #3 · message 3 edited/,
    );
    await view.get('[data-testid="branches-button"]').trigger('click');
    const nodes = view.findAll('[data-testid="family-node"]');
    expect(nodes.map((node) => node.attributes('data-session-id'))).toEqual(['root', 'fork1', 'fork2']);
    expect(nodes.map((node) => node.get('[data-testid="family-label"]').text())).toEqual([
      'original',
      'at #3 · message 3 edited',
      'at #2 · writer: model llama3',
    ]);
    expect(nodes[1]!.attributes('aria-current')).toBe('page');
    await nodes[2]!.get('[data-testid="family-open"]').trigger('click');
    expect(window.location.hash).toBe('#/sessions/fork2');
    await view.get('[data-testid="branches-button"]').trigger('click');
    await view.findAll('[data-testid="family-compare"]')[0]!.trigger('click');
    expect(window.location.hash).toBe('#/compare/fork1/root');
  });

  it('groups the sessions list into families and compares two picked sessions', async () => {
    const items = [
      listItem('fork2', {
        forkOf: { sessionId: 'root', atMessage: 2 },
        family: { rootId: 'root', size: 3, forks: 0 },
      }),
      listItem('root', { title: 'The original', family: { rootId: 'root', size: 3, forks: 2 } }),
      listItem('other', { title: 'Another run' }),
    ];
    const fake = backend({ 'sessions.list': () => ({ ok: true, value: { items, total: items.length } }) });
    window.location.hash = '#/sessions';
    const view = mount(SessionsView, { attachTo: document.body });
    await flushPromises();
    const families = view.findAll('[data-testid="session-family"]');
    expect(
      families.map((group) => [group.attributes('data-session-id'), group.attributes('data-size')]),
    ).toEqual([
      ['root', '3'],
      ['other', '1'],
    ]);
    expect(view.findAll('[data-testid="session-row"]')).toHaveLength(2);
    const toggle = families[0]!.get('[data-testid="family-toggle"]');
    expect(toggle.text()).toContain('2 forks');
    expect(families[1]!.find('[data-testid="family-toggle"]').exists()).toBe(false);
    await toggle.trigger('click');
    await flushPromises();
    expect(fake.calls.filter((call) => call.channel === 'branches.family').at(-1)?.input).toEqual({
      id: 'root',
    });
    expect(families[0]!.findAll('[data-testid="family-node"]')).toHaveLength(3);

    await families[0]!.findAll('[data-testid="family-pick"]')[2]!.setValue(true);
    expect(view.get('[data-testid="compare-start"]').attributes('disabled')).toBeDefined();
    await families[1]!.get('[data-testid="compare-pick"]').setValue(true);
    const bar = view.get('[data-testid="compare-bar"]');
    expect(bar.text()).toContain('Title fork2');
    expect(bar.text()).toContain('Another run');
    await view.get('[data-testid="compare-start"]').trigger('click');
    expect(window.location.hash).toBe('#/compare/fork2/other');
  });
});
