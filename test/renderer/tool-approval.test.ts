import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, SessionListItem } from '@shared/contract';
import type { RunEvent, ToolApproval as Approval } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import { useSessionStore } from '../../src-renderer/session/session-store';
import ToolApproval from '../../src-renderer/session-view/ToolApproval.vue';
import HumanInput from '../../src-renderer/session-view/HumanInput.vue';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, threeAgents } from './session-fixture';

const summary: SessionListItem = {
  id: 's1',
  title: 'Files',
  task: 'Read the notes',
  fleetName: 'trio',
  status: 'waiting-for-human',
  stopReason: null,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  endedAt: null,
  messageCount: 0,
  tokens: 0,
  parentSessionId: null,
  forkSeq: null,
  tags: [],
  source: 'run',
  readOnly: false,
  durationMs: 100,
};

const readFile: Approval = {
  callId: 'c1',
  name: 'fs/read_file',
  server: 'fs',
  tool: 'read_file',
  arguments: '{"path":"/notes/todo.md"}',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, head: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
};

/** Opens a session whose planner waits for approval of `approval` and mounts both answer panels. */
async function waiting(approval: Approval | null = readFile) {
  const log = new EventLog().start();
  log.add('planner', {
    kind: 'human.requested',
    payload: {
      requestId: 'ask-1',
      prompt: "Approve planner's call of fs/read_file?",
      ...(approval ? { approval } : {}),
    },
  });
  log.add('planner', { kind: 'agent.status', payload: { status: 'waiting-for-human' } });
  const stored: RunEvent[] = [...log.events];
  const fake = createFakeBridge((channel: ChannelName) => {
    switch (channel) {
      case 'sessions.get':
        return { ok: true, value: { summary, fleet: threeAgents } };
      case 'sessions.events':
        return { ok: true, value: { events: stored, lastSeq: stored.length } };
      case 'runs.answer':
        return { ok: true, value: { sessionId: 's1', status: 'running' } };
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
  setBridge(fake.bridge);
  await useSessionStore().open('s1');
  const panel = mount(ToolApproval, { attachTo: document.body });
  const human = mount(HumanInput);
  await flushPromises();
  const answers = () =>
    fake.calls
      .filter((call) => call.channel === 'runs.answer')
      .map((call) => (call.input as { text: string }).text);
  return { panel, human, answers };
}

describe('approving a tool call in the app', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows the server, the tool and the arguments in place of the answer box, Approve focused', async () => {
    const { panel, human, answers } = await waiting();
    expect(human.find('[data-testid="human-input"]').exists()).toBe(false);
    expect(panel.get('[data-testid="approval-tool"]').text()).toBe('fs/read_file');
    expect(panel.get('[data-testid="approval-server"]').text()).toBe('fs');
    expect(panel.get('[data-testid="approval-arguments"]').text()).toContain('"path": "/notes/todo.md"');
    expect(document.activeElement).toBe(panel.get('[data-testid="approval-approve"]').element);
    await panel.get('[data-testid="approval-approve"]').trigger('click');
    await flushPromises();
    expect(answers()).toEqual(['approve']);
    panel.unmount();
  });

  it('denies with the reason the person typed', async () => {
    const { panel, answers } = await waiting();
    await panel.get('[data-testid="approval-deny"]').trigger('click');
    await flushPromises();
    expect(document.activeElement).toBe(panel.get('[data-testid="approval-reason"]').element);
    await panel.get('[data-testid="approval-reason"]').setValue('not that folder');
    await panel.get('[data-testid="approval-deny-form"]').trigger('submit');
    await flushPromises();
    expect(answers()).toEqual(['deny not that folder']);
    panel.unmount();
  });

  it('checks edited arguments against the input schema and sends them only when they fit', async () => {
    const { panel, answers } = await waiting();
    await panel.get('[data-testid="approval-edit"]').trigger('click');
    const box = panel.get('[data-testid="approval-edited"]');
    expect((box.element as HTMLTextAreaElement).value).toContain('/notes/todo.md');
    await box.setValue('{"path": 3, "mode": "x"}');
    const problems = panel.get('[data-testid="approval-problems"]').text();
    expect(problems).toContain('path must be a string');
    expect(problems).toContain('mode is not a known argument');
    expect(panel.get('[data-testid="approval-edit-send"]').attributes('disabled')).toBeDefined();
    await box.setValue('{"path": "/notes/done.md"');
    expect(panel.get('[data-testid="approval-problems"]').text()).toContain('Not valid JSON');
    await box.setValue('{"head": 0}');
    expect(panel.get('[data-testid="approval-problems"]').text()).toContain('path is required');
    await panel.get('[data-testid="approval-edit-form"]').trigger('submit');
    expect(answers()).toEqual([]);
    await box.setValue('{"path": "/notes/done.md", "head": 5}');
    expect(panel.get('[data-testid="approval-problems"]').text()).toBe('');
    await box.trigger('keydown', { key: 'Enter', ctrlKey: true });
    await flushPromises();
    expect(answers()).toEqual(['{"path":"/notes/done.md","head":5}']);
    panel.unmount();
  });

  it('Escape leaves editing without sending; a plain question keeps the answer box', async () => {
    const { panel, answers } = await waiting();
    await panel.get('[data-testid="approval-edit"]').trigger('click');
    await panel.get('[data-testid="approval-edited"]').trigger('keydown', { key: 'Escape' });
    await flushPromises();
    expect(panel.find('[data-testid="approval-edited"]').exists()).toBe(false);
    expect(document.activeElement).toBe(panel.get('[data-testid="approval-approve"]').element);
    expect(answers()).toEqual([]);
    panel.unmount();
    setActivePinia(createPinia());
    const plain = await waiting(null);
    expect(plain.panel.find('[data-testid="tool-approval"]').exists()).toBe(false);
    expect(plain.human.find('[data-testid="human-input"]').exists()).toBe(true);
    plain.panel.unmount();
  });
});
