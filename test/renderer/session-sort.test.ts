import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { setBridge } from '../../src-renderer/bridge/current';
import SessionSort from '../../src-renderer/sessions/SessionSort.vue';
import { createFakeBridge } from '../helpers/fake-bridge';

describe('sessions list sort', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    setActivePinia(createPinia());
    fake = createFakeBridge(() => ({ ok: true, value: { items: [], total: 0 } }));
    setBridge(fake.bridge);
  });

  it('asks for the list by cost, tokens or duration, and newest first again without a sort', async () => {
    const view = mount(SessionSort);
    expect(view.get('[data-testid="sort-created"]').attributes('aria-pressed')).toBe('true');
    for (const by of ['cost', 'tokens', 'duration'] as const) {
      await view.get(`[data-testid="sort-${by}"]`).trigger('click');
      await flushPromises();
      expect(fake.calls.at(-1)).toMatchObject({ channel: 'sessions.list', input: { sort: by, offset: 0 } });
      expect(view.get(`[data-testid="sort-${by}"]`).attributes('aria-pressed')).toBe('true');
      expect(view.get(`[data-testid="sort-${by}"]`).text()).toContain('↓');
    }
    await view.get('[data-testid="sort-created"]').trigger('click');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).not.toHaveProperty('sort');
  });
});
