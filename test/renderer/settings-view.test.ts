import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { Settings } from '@shared/contract';
import SettingsView from '../../src-renderer/settings/SettingsView.vue';
import StatusBar from '../../src-renderer/shell/StatusBar.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import type { Bridge } from '../../src-renderer/bridge/types';
import { createFakeBridge } from '../helpers/fake-bridge';

const defaults: Settings = {
  theme: 'system',
  retentionDays: null,
  maxMessagesPerSession: null,
  sidebarCollapsed: false,
  otlpExportEndpoint: null,
  priceOverrides: [],
};

let confirmed: number | null = null;

function backend() {
  let settings = { ...defaults };
  confirmed = null;
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'settings.get') return { ok: true, value: settings };
    if (channel === 'settings.set') {
      settings = { ...settings, ...(input as Partial<Settings>) };
      if ((input as Partial<Settings>).retentionDays !== undefined)
        confirmed = (input as Partial<Settings>).retentionDays ?? null;
      return { ok: true, value: settings };
    }
    if (channel === 'settings.retentionPreview') {
      const days = (input as { days?: number | null }).days ?? settings.retentionDays;
      return {
        ok: true,
        value: {
          days,
          count: days === null ? 0 : 3,
          sessions: [
            { id: 'ses_a', title: 'Old debate', storedAt: 1 },
            { id: 'ses_b', title: 'Old review', storedAt: 2 },
          ],
          confirmed: days === null || confirmed === days,
        },
      };
    }
    if (channel === 'app.info') {
      return {
        ok: true,
        value: {
          name: 'Fleetscope',
          version: '9.9.9',
          dataDir: '/data',
          surface: 'browser',
          platform: 'linux',
        },
      };
    }
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return fake;
}

describe('the settings page', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows the stored theme and saves a new one through the bridge', async () => {
    const fake = backend();
    const view = mount(SettingsView);
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    await useSettingsStore().load();
    await flushPromises();
    const select = view.get('[data-testid="theme-select"]');
    expect((select.element as HTMLSelectElement).value).toBe('system');
    await select.setValue('dark');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'settings.set', input: { theme: 'dark' } });
    expect(useSettingsStore().theme).toBe('dark');
  });

  it('refuses a retention that is not a whole number above zero, without saving', async () => {
    const fake = backend();
    const view = mount(SettingsView);
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    await useSettingsStore().load();
    await flushPromises();
    await view.get('[data-testid="retention-days"]').setValue('-3');
    await flushPromises();
    expect(view.get('[role="alert"]').text()).toContain('whole number');
    expect(fake.calls.some((call) => call.channel === 'settings.set')).toBe(false);
  });

  it('shows what a retention would delete before saving it, and saves only on the button', async () => {
    const fake = backend();
    const view = mount(SettingsView);
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    await useSettingsStore().load();
    await flushPromises();
    await view.get('[data-testid="retention-days"]').setValue('30');
    await flushPromises();
    expect(view.get('[data-testid="retention-count"]').text()).toBe('3 sessions would be deleted now:');
    expect(view.get('[data-testid="retention-preview"]').text()).toContain('Old debate');
    expect(fake.calls.some((call) => call.channel === 'settings.set')).toBe(false);
    expect(view.get('[data-testid="retention-save"]').text()).toBe('Delete 3 sessions and save');
    await view.get('[data-testid="retention-save"]').trigger('click');
    await flushPromises();
    expect(fake.calls.filter((call) => call.channel === 'settings.set')).toEqual([
      { channel: 'settings.set', input: { retentionDays: 30 } },
    ]);
    expect(view.find('[data-testid="retention-preview"]').exists()).toBe(false);
  });

  it('reloads when another surface changed the settings', async () => {
    const fake = backend();
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    const store = useSettingsStore();
    await store.load();
    const before = fake.calls.length;
    fake.emit({ seq: 1, channel: 'store.changed', payload: { topic: 'settings' } });
    await flushPromises();
    expect(fake.calls.slice(before)).toEqual([{ channel: 'settings.get', input: {} }]);
  });
});

describe('the settings store while the host is slow to answer', () => {
  beforeEach(() => setActivePinia(createPinia()));

  /** The fake backend answers at once; the answers reach the page only when released, in any order. */
  function slowBackend(respond?: Parameters<typeof createFakeBridge>[0]) {
    const fake = respond ? createFakeBridge(respond) : backend();
    const held: Array<() => void> = [];
    const bridge: Bridge = {
      ...fake.bridge,
      call: ((channel: never, input: never) => {
        const answer = fake.bridge.call(channel, input);
        return new Promise((resolve) => held.push(() => resolve(answer)));
      }) as Bridge['call'],
    };
    setBridge(bridge);
    return { fake, release: (index: number) => held[index]!() };
  }

  it('shows a picked theme at once, and a read answered after the save does not undo it', async () => {
    const { release } = slowBackend();
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    const store = useSettingsStore();
    const first = store.load();
    release(0);
    await first;
    expect(store.theme).toBe('system');

    const reading = store.load(); // a resync's read, answered with the theme before the save
    const saving = store.update({ theme: 'dark' });
    expect(store.theme).toBe('dark');
    release(2);
    await expect(saving).resolves.toBe(true);
    release(1);
    await reading;
    expect(store.theme).toBe('dark');
    expect(store.settings?.theme).toBe('dark');
  });

  it('goes back to the stored theme and says why when the save is refused', async () => {
    const { release } = slowBackend((channel) =>
      channel === 'settings.get'
        ? { ok: true, value: { ...defaults, theme: 'light' } }
        : { ok: false, error: { code: 'internal', message: 'The store is read-only' } },
    );
    const { useSettingsStore } = await import('../../src-renderer/settings/settings-store');
    const store = useSettingsStore();
    const first = store.load();
    release(0);
    await first;
    const saving = store.update({ theme: 'dark' });
    expect(store.theme).toBe('dark');
    release(1);
    await expect(saving).resolves.toBe(false);
    expect(store.theme).toBe('light');
    expect(store.error).toBe('The store is read-only');
  });
});

describe('the status bar', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('follows the connection from online to offline and back', async () => {
    const fake = backend();
    const bar = mount(StatusBar);
    expect(bar.get('[data-testid="connection-state"]').text()).toBe('Connected');
    fake.setConnection('offline');
    await flushPromises();
    expect(bar.get('[data-testid="connection-state"]').attributes('data-state')).toBe('offline');
    expect(bar.text()).toContain('reconnecting');
    fake.setConnection('connecting');
    await flushPromises();
    expect(bar.get('[data-testid="connection-state"]').text()).toBe('Connecting…');
  });
});

describe('the status bar, offline for a while', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('suggests opening the new link when the browser host stays unreachable', async () => {
    vi.useFakeTimers();
    try {
      const fake = backend();
      const { useConnectionStore } = await import('../../src-renderer/shell/connection-store');
      await useConnectionStore().loadInfo();
      const bar = mount(StatusBar);
      fake.setConnection('offline');
      await vi.advanceTimersByTimeAsync(5_000);
      expect(bar.find('[data-testid="offline-hint"]').exists()).toBe(false);
      await vi.advanceTimersByTimeAsync(7_000);
      expect(bar.get('[data-testid="offline-hint"]').text()).toContain('open the new link');
      fake.setConnection('online');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(bar.find('[data-testid="offline-hint"]').exists()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
