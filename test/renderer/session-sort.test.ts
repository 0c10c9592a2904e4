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

  it('asks for the list by tokens most first, then least first, and by duration', async () => {
    const view = mount(SessionSort);
    expect(view.get('[data-testid="sort-created"]').attributes('aria-pressed')).toBe('true');
    await view.get('[data-testid="sort-tokens"]').trigger('click');
    await flushPromises();
    expect(fake.calls.at(-1)).toMatchObject({
      channel: 'sessions.list',
      input: { sort: { by: 'tokens', ascending: false } },
    });
    expect(view.get('[data-testid="sort-tokens"]').attributes('data-order')).toBe('descending');
    await view.get('[data-testid="sort-tokens"]').trigger('click');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).toMatchObject({ sort: { by: 'tokens', ascending: true } });
    expect(view.get('[data-testid="sort-tokens"]').text()).toContain('↑');
    await view.get('[data-testid="sort-duration"]').trigger('click');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).toMatchObject({ sort: { by: 'duration', ascending: false } });
    // Newest first again: the default query, with no sort sent.
    await view.get('[data-testid="sort-created"]').trigger('click');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).not.toHaveProperty('sort');
  });
});
