import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { Settings } from '@shared/contract';
import SettingsView from '../../src-renderer/views/SettingsView.vue';
import StatusBar from '../../src-renderer/components/StatusBar.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { createFakeBridge } from '../helpers/fake-bridge';

const defaults: Settings = {
  theme: 'system',
  retentionDays: null,
  maxMessagesPerSession: null,
  sidebarCollapsed: false,
  otlpExportEndpoint: null,
};

function backend() {
  let settings = { ...defaults };
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'settings.get') return { ok: true, value: settings };
    if (channel === 'settings.set') {
      settings = { ...settings, ...(input as Partial<Settings>) };
      return { ok: true, value: settings };
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
    const { useSettingsStore } = await import('../../src-renderer/stores/settings');
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
    const { useSettingsStore } = await import('../../src-renderer/stores/settings');
    await useSettingsStore().load();
    await flushPromises();
    await view.get('[data-testid="retention-days"]').setValue('-3');
    await flushPromises();
    expect(view.get('[role="alert"]').text()).toContain('whole number');
    expect(fake.calls.some((call) => call.channel === 'settings.set')).toBe(false);
  });

  it('reloads when another surface changed the settings', async () => {
    const fake = backend();
    const { useSettingsStore } = await import('../../src-renderer/stores/settings');
    const store = useSettingsStore();
    await store.load();
    const before = fake.calls.length;
    fake.emit({ seq: 1, channel: 'store.changed', payload: { topic: 'settings' } });
    await flushPromises();
    expect(fake.calls.slice(before)).toEqual([{ channel: 'settings.get', input: {} }]);
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
      const { useConnectionStore } = await import('../../src-renderer/stores/connection');
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
