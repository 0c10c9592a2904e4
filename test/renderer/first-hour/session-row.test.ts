import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, SessionListItem } from '@shared/contract';
import { setBridge } from '../../../src-renderer/bridge/current';
import SessionRow from '../../../src-renderer/sessions/SessionRow.vue';
import { createFakeBridge } from '../../helpers/fake-bridge';

const item: SessionListItem = {
  id: 's1',
  title: 'Remote work debate',
  task: 'Debate remote work',
  fleetName: 'Debate',
  status: 'completed',
  stopReason: 'max-messages',
  createdAt: Date.now(),
  updatedAt: Date.now(),
  endedAt: Date.now(),
  messageCount: 20,
  tokens: 0,
  parentSessionId: null,
  forkSeq: null,
  tags: ['demo', 'remote'],
  source: 'run',
  readOnly: false,
  durationMs: 4000,
};

function setup(overrides: Partial<SessionListItem> = {}) {
  const fake = createFakeBridge((channel: ChannelName, input: unknown) => {
    switch (channel) {
      case 'sessions.rename':
        return { ok: true, value: { ...item, title: (input as { title: string }).title } };
      case 'sessions.export':
        return { ok: true, value: { path: '/data/exports/x.md', bytes: 10, fileName: 'x.md' } };
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
  setBridge(fake.bridge);
  const row = mount(SessionRow, { props: { item: { ...item, ...overrides } }, attachTo: document.body });
  return { fake, row };
}

describe('a session row', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('says why the session stopped in a sentence and shows tags without a bare "#"', () => {
    const { row } = setup();
    expect(row.get('[data-testid="stop-reason"]').text()).toBe('Stopped after 20 messages');
    expect(row.findAll('[data-testid="tag"]').map((tag) => tag.text())).toEqual(['demo', 'remote']);
    expect(row.text()).not.toContain('#');
    expect(row.text()).not.toContain('max-messages');
    row.unmount();
  });

  it('keeps its commands behind one labelled "Actions" menu', async () => {
    const { row } = setup();
    const trigger = row.get('[data-testid="row-actions"]');
    expect(trigger.text()).toContain('Actions');
    expect(trigger.attributes('aria-haspopup')).toBe('menu');
    expect(trigger.attributes('aria-label')).toBe('Actions for Remote work debate');
    expect(row.find('[role="menu"]').exists()).toBe(false);
    // Only the menu button sits on the row: no bare symbols or format codes.
    expect(row.findAll('.actions button')).toHaveLength(1);

    await trigger.trigger('click');
    const items = row.findAll('[role="menuitem"]').map((entry) => entry.text());
    expect(items).toEqual([
      'Rename…',
      'Edit tags…',
      'Web page (HTML)',
      'Markdown',
      'Fleetscope JSON',
      'OpenTelemetry JSON',
      'Delete…',
    ]);
    expect(row.text()).toContain('Export as…');
    expect(row.text()).not.toMatch(/\botlp\b/);
    expect(trigger.attributes('aria-expanded')).toBe('true');
    row.unmount();
  });

  it('moves through the menu with the arrow keys and closes on Escape, focus back on the button', async () => {
    const { row } = setup();
    const trigger = row.get('[data-testid="row-actions"]');
    await trigger.trigger('keydown', { key: 'ArrowDown' });
    await flushPromises();
    expect(document.activeElement?.textContent?.trim()).toBe('Rename…');
    await row.get('[role="menu"]').trigger('keydown', { key: 'ArrowDown' });
    expect(document.activeElement?.textContent?.trim()).toBe('Edit tags…');
    await row.get('[role="menu"]').trigger('keydown', { key: 'ArrowUp' });
    await row.get('[role="menu"]').trigger('keydown', { key: 'ArrowUp' });
    expect(document.activeElement?.textContent?.trim()).toBe('Delete…');
    await row.get('[role="menu"]').trigger('keydown', { key: 'Escape' });
    expect(row.find('[role="menu"]').exists()).toBe(false);
    expect(document.activeElement).toBe(trigger.element);
    row.unmount();
  });

  it('closes the menu on a click elsewhere', async () => {
    const { row } = setup();
    await row.get('[data-testid="row-actions"]').trigger('click');
    document.body.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    await flushPromises();
    expect(row.find('[role="menu"]').exists()).toBe(false);
    row.unmount();
  });

  it('renames from the menu, imported sessions included', async () => {
    const { row, fake } = setup({ readOnly: true, source: 'import' });
    await row.get('[data-testid="row-actions"]').trigger('click');
    await row.get('[data-testid="action-rename"]').trigger('click');
    await flushPromises();
    const input = row.get('input[aria-label="Session title"]');
    await input.setValue('Renamed');
    await input.trigger('keydown', { key: 'Enter' });
    await flushPromises();
    expect(fake.calls.find((entry) => entry.channel === 'sessions.rename')?.input).toEqual({
      id: 's1',
      title: 'Renamed',
    });
    row.unmount();
  });

  it('asks before deleting, and disables exports with the reason while one runs', async () => {
    const { row, fake } = setup();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    let finish: () => void = () => undefined;
    const answer = fake.bridge.call.bind(fake.bridge);
    fake.bridge.call = (async (channel: ChannelName, input: never) => {
      if (channel === 'sessions.export') await new Promise<void>((resolve) => (finish = resolve));
      return answer(channel, input);
    }) as typeof fake.bridge.call;
    await row.get('[data-testid="row-actions"]').trigger('click');
    await row.get('[data-testid="export-md"]').trigger('click');
    // The export is in flight: the menu offers no second one, and says why.
    await row.get('[data-testid="row-actions"]').trigger('click');
    expect(row.get('[data-testid="export-html"]').attributes('disabled')).toBeDefined();
    expect(row.text()).toContain('An export of this session is already running.');
    finish();
    await flushPromises();
    await row.get('[data-testid="row-actions"]').trigger('click');
    await row.get('[data-testid="row-actions"]').trigger('click');
    expect(row.get('[data-testid="export-html"]').attributes('disabled')).toBeUndefined();
    await row.get('[data-testid="delete-session"]').trigger('click');
    expect(row.text()).toContain('Delete this session?');
    expect(row.find('[data-testid="confirm-delete"]').exists()).toBe(true);
    click.mockRestore();
    row.unmount();
  });
});
