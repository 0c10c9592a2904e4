import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { UnmappedList } from '@shared/contract';
import UnmappedPanel from '../../src-renderer/session-view/UnmappedPanel.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { createFakeBridge } from '../helpers/fake-bridge';

function withList(list: UnmappedList) {
  const fake = createFakeBridge((channel) =>
    channel === 'sessions.unmapped'
      ? { ok: true, value: list }
      : { ok: false, error: { code: 'unknown-channel', message: channel } },
  );
  setBridge(fake.bridge);
  return fake;
}

describe("the header's unmapped panel", () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('lists each unmapped part with its span, agent and why, and says how many are not shown', async () => {
    const fake = withList({
      items: [
        {
          seq: 3,
          spanId: 'a1',
          name: 'POST /v1/chat',
          agent: null,
          why: 'The span is no agent, model call, tool or handoff.',
        },
        {
          seq: 9,
          spanId: 'b2',
          name: 'chat',
          agent: 'Writer',
          why: 'Mapped, but attributes llm.foo had no Fleetscope meaning.',
        },
      ],
      total: 600,
    });
    const view = mount(UnmappedPanel, { props: { sessionId: 'ses_1' } });
    await flushPromises();
    expect(fake.calls[0]).toMatchObject({ channel: 'sessions.unmapped', input: { id: 'ses_1' } });
    const rows = view.findAll('[data-testid="unmapped-item"]').map((row) => row.text());
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('POST /v1/chat');
    expect(rows[1]).toContain('Writer');
    expect(rows[1]).toContain('llm.foo');
    expect(view.text()).toContain('2 of 600 shown');
    await view.get('[data-testid="unmapped-backdrop"]').trigger('keydown', { key: 'Escape' });
    expect(view.emitted('close')).toHaveLength(1);
  });

  it('says plainly when nothing was left unmapped', async () => {
    withList({ items: [], total: 0 });
    const view = mount(UnmappedPanel, { props: { sessionId: 'ses_2' } });
    await flushPromises();
    expect(view.find('[data-testid="unmapped-list"]').exists()).toBe(false);
    expect(view.get('[data-testid="unmapped-empty"]').text()).toMatch(/Nothing was left unmapped/);
  });
});
