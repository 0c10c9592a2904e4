import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { settingsPatchSchema, settingsSchema, type Settings } from '@shared/contract';
import SettingsView from '../../src-renderer/settings/SettingsView.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { useSettingsStore } from '../../src-renderer/settings/settings-store';
import { createFakeBridge } from '../helpers/fake-bridge';

/** A settings backend that validates patches with the contract's own schema, like the app does. */
function backend() {
  let settings: Settings = settingsSchema.parse({});
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'settings.get') return { ok: true, value: settings };
    if (channel === 'settings.set') {
      const patch = settingsPatchSchema.safeParse(input);
      if (!patch.success)
        return {
          ok: false,
          error: { code: 'invalid-input', message: `otlpExportEndpoint: ${patch.error.issues[0]?.message}` },
        };
      settings = { ...settings, ...patch.data };
      return { ok: true, value: settings };
    }
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return fake;
}

async function openSettings() {
  const fake = backend();
  const view = mount(SettingsView);
  await useSettingsStore().load();
  await flushPromises();
  return { fake, view, field: view.get<HTMLInputElement>('[data-testid="otlp-export-endpoint"]') };
}

describe('Settings: live export to an OTLP collector', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('is off by default, saves an endpoint, and an empty field turns it off again', async () => {
    const { fake, field } = await openSettings();
    expect(field.element.value).toBe('');
    await field.setValue('http://127.0.0.1:4318');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({
      channel: 'settings.set',
      input: { otlpExportEndpoint: 'http://127.0.0.1:4318' },
    });
    expect(useSettingsStore().settings?.otlpExportEndpoint).toBe('http://127.0.0.1:4318');
    await field.setValue('   ');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'settings.set', input: { otlpExportEndpoint: null } });
    expect(field.element.value).toBe('');
  });

  it('shows why an address is refused and keeps the last good one', async () => {
    const { view, field } = await openSettings();
    await field.setValue('http://127.0.0.1:4318');
    await flushPromises();
    await field.setValue('ftp://collector.example');
    await flushPromises();
    expect(view.get('[role="alert"]').text()).toContain('http:// or https://');
    expect(useSettingsStore().settings?.otlpExportEndpoint).toBe('http://127.0.0.1:4318');
    expect(field.element.value).toBe('ftp://collector.example');
  });
});
