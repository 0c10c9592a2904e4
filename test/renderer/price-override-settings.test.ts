import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { Settings } from '@shared/contract';
import PriceOverrideSettings from '../../src-renderer/settings/PriceOverrideSettings.vue';
import { useSettingsStore } from '../../src-renderer/settings/settings-store';
import { setBridge } from '../../src-renderer/bridge/current';
import { parsePriceDraft } from '../../src-renderer/settings/price-draft';
import { createFakeBridge } from '../helpers/fake-bridge';

function backend(initial: Partial<Settings> = {}) {
  let settings: Settings = {
    theme: 'system',
    retentionDays: null,
    maxMessagesPerSession: null,
    sidebarCollapsed: false,
    otlpExportEndpoint: null,
    priceOverrides: [],
    ...initial,
  };
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'settings.get') return { ok: true, value: settings };
    if (channel === 'settings.set') {
      settings = { ...settings, ...(input as Partial<Settings>) };
      return { ok: true, value: settings };
    }
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return { fake, settings: () => settings };
}

async function mounted() {
  const view = mount(PriceOverrideSettings);
  await useSettingsStore().load();
  await flushPromises();
  return view;
}

async function fill(view: Awaited<ReturnType<typeof mounted>>, fields: Record<string, string>) {
  for (const [name, value] of Object.entries(fields))
    await view.get(`[data-testid="price-${name}"]`).setValue(value);
}

describe('Settings › Prices', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('says no price is set, then adds a local model at 0 with the Free button', async () => {
    const { settings } = backend();
    const view = await mounted();
    expect(view.get('[data-testid="price-empty"]').text()).toContain('No prices of your own');
    await fill(view, { provider: 'ollama', model: '*' });
    await view.get('[data-testid="price-free"]').trigger('click');
    await view.get('[data-testid="price-add"]').trigger('click');
    await flushPromises();
    expect(settings().priceOverrides).toEqual([
      { provider: 'ollama', model: '*', inputPerMTok: 0, outputPerMTok: 0 },
    ]);
    const rows = view.findAll('[data-testid="price-row"]');
    expect(rows.map((row) => row.text())).toEqual([expect.stringContaining('* (every model)')]);
    expect(view.get('[data-testid="price-saved"]').text()).toBe('Added the price of every ollama model.');
    // The form is cleared for the next price.
    expect((view.get('[data-testid="price-provider"]').element as HTMLInputElement).value).toBe('');
  });

  it('refuses a bad price with a clear error and saves nothing', async () => {
    const { fake } = backend();
    const view = await mounted();
    await fill(view, { provider: 'custom', model: 'my-model', input: '-1', output: '2' });
    await view.get('[data-testid="price-add"]').trigger('click');
    await flushPromises();
    expect(view.get('[data-testid="price-error"]').text()).toBe(
      'The input price must be a number of dollars of 0 or more (got "-1").',
    );
    expect(fake.calls.some((call) => call.channel === 'settings.set')).toBe(false);
    await fill(view, { input: '1', output: '' });
    await view.get('[data-testid="price-output"]').trigger('keydown', { key: 'Enter' });
    expect(view.get('[data-testid="price-error"]').text()).toBe(
      'The output price is missing: enter 0 for free.',
    );
    expect(fake.calls.some((call) => call.channel === 'settings.set')).toBe(false);
  });

  it('changes a price in place through Edit, and removes one', async () => {
    const { settings } = backend({
      priceOverrides: [
        { provider: 'custom', model: 'gpt-4o-mini', inputPerMTok: 10, outputPerMTok: 20 },
        { provider: 'vllm', model: '*', inputPerMTok: 0, outputPerMTok: 0 },
      ],
    });
    const view = await mounted();
    await view.get('[aria-label="Edit the price of custom gpt-4o-mini"]').trigger('click');
    expect(view.get('[data-testid="price-add"]').text()).toBe('Change price');
    await fill(view, { output: '30', cached: '2.5' });
    await view.get('[data-testid="price-add"]').trigger('click');
    await flushPromises();
    expect(settings().priceOverrides[0]).toEqual({
      provider: 'custom',
      model: 'gpt-4o-mini',
      inputPerMTok: 10,
      outputPerMTok: 30,
      cachedInputPerMTok: 2.5,
    });
    expect(view.findAll('[data-testid="price-row"]')[0]?.text()).toContain('$2.5');
    await view.get('[aria-label="Remove the price of every vllm model"]').trigger('click');
    await flushPromises();
    expect(settings().priceOverrides).toHaveLength(1);
    expect(view.get('[data-testid="price-saved"]').text()).toContain('the price table prices it again');
  });

  it('names what is missing or out of range', () => {
    const draft = {
      provider: ' ',
      model: 'm',
      inputPerMTok: '1',
      outputPerMTok: '1',
      cachedInputPerMTok: '',
    };
    expect(parsePriceDraft(draft)).toEqual({
      error: 'Name the provider the price is for (e.g. ollama, custom).',
    });
    expect(parsePriceDraft({ ...draft, provider: 'p', model: '' })).toEqual({
      error: 'Name the model, or * for every model of the provider.',
    });
    expect(parsePriceDraft({ ...draft, provider: 'p', inputPerMTok: 'abc' })).toEqual({
      error: 'The input price must be a number of dollars of 0 or more (got "abc").',
    });
    expect(parsePriceDraft({ ...draft, provider: 'p', cachedInputPerMTok: '200000' })).toEqual({
      error: 'The cached input price must be at most $100,000 per million tokens.',
    });
  });
});
