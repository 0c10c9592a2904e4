import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { makeTempDir } from '../../helpers/temp-dir';

const desktop = { surface: 'desktop' } as const;

describe('the contract dispatcher', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;

  beforeEach(() => {
    temp = makeTempDir();
    app = createApp({ dataDir: temp.dir, surface: 'desktop', pingIntervalMs: 0, seedSamples: false });
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('answers app.info with the version, data folder and surface', async () => {
    const result = await app.dispatcher.dispatch('app.info', {}, desktop);
    expect(result).toMatchObject({
      ok: true,
      value: { name: 'Fleetscope', dataDir: temp.dir, surface: 'desktop' },
    });
    expect((result as { value: { version: string } }).value.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('returns defaults, then persists a setting across a restart of the app', async () => {
    expect(await app.dispatcher.dispatch('settings.get', {}, desktop)).toMatchObject({
      ok: true,
      value: { theme: 'system', retentionDays: null },
    });
    const set = await app.dispatcher.dispatch('settings.set', { theme: 'dark', retentionDays: 30 }, desktop);
    expect(set).toMatchObject({ ok: true, value: { theme: 'dark', retentionDays: 30 } });

    await app.close();
    app = createApp({ dataDir: temp.dir, surface: 'browser', pingIntervalMs: 0, seedSamples: false });
    expect(await app.dispatcher.dispatch('settings.get', {}, desktop)).toMatchObject({
      ok: true,
      value: { theme: 'dark', retentionDays: 30 },
    });
  });

  it('announces a settings change as a store.changed event', async () => {
    const seen: unknown[] = [];
    app.hub.onDidEmit((event) => seen.push(event));
    await app.dispatcher.dispatch('settings.set', { theme: 'light' }, desktop);
    expect(seen).toEqual([{ seq: 1, channel: 'store.changed', payload: { topic: 'settings' } }]);
  });

  const badCalls: Array<[string, unknown, unknown, string]> = [
    ['an unknown channel', 'settings.delete', {}, 'unknown-channel'],
    ['a non-string channel', 42, {}, 'unknown-channel'],
    ['a prototype key as channel', '__proto__', {}, 'unknown-channel'],
    ['a wrong type', 'settings.set', { theme: 7 }, 'invalid-input'],
    ['an unknown value', 'settings.set', { theme: 'purple' }, 'invalid-input'],
    ['an unknown field', 'settings.set', { colour: 'red' }, 'invalid-input'],
    ['a non-object payload', 'settings.set', 'dark', 'invalid-input'],
    ['a negative number', 'settings.set', { retentionDays: -1 }, 'invalid-input'],
    ['an oversized payload', 'settings.set', { theme: 'x'.repeat(9 * 1024 * 1024) }, 'too-large'],
  ];

  it.each(badCalls)(
    'refuses %s with a typed error and changes nothing',
    async (_label, channel, payload, code) => {
      await app.dispatcher.dispatch('settings.set', { theme: 'dark' }, desktop);
      const result = await app.dispatcher.dispatch(channel, payload, desktop);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe(code);
        expect(result.error.message.length).toBeGreaterThan(10);
      }
      expect(await app.dispatcher.dispatch('settings.get', {}, desktop)).toMatchObject({
        ok: true,
        value: { theme: 'dark', retentionDays: null },
      });
    },
  );

  it('names the offending field in a validation error', async () => {
    const result = await app.dispatcher.dispatch('settings.set', { maxMessagesPerSession: 'lots' }, desktop);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!result.ok) expect(result.error.message).toContain('maxMessagesPerSession');
  });

  it('refuses a payload that cannot be serialized', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const result = await app.dispatcher.dispatch('settings.set', cyclic, desktop);
    expect(result).toMatchObject({ ok: false, error: { code: 'too-large' } });
  });
});

describe('settings.set', () => {
  it('changes only the fields it is given', async () => {
    const temp = makeTempDir();
    const app = createApp({ dataDir: temp.dir, surface: 'desktop', pingIntervalMs: 0, seedSamples: false });
    try {
      await app.dispatcher.dispatch('settings.set', { theme: 'dark' }, desktop);
      const result = await app.dispatcher.dispatch('settings.set', { retentionDays: 7 }, desktop);
      expect(result).toMatchObject({ ok: true, value: { theme: 'dark', retentionDays: 7 } });
    } finally {
      await app.close();
      temp.remove();
    }
  });
});
