import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, Result } from '@shared/contract';
import { setBridge } from '../../../src-renderer/bridge/current';
import App from '../../../src-renderer/App.vue';
import { modifierName, shortcutGroups } from '../../../src-renderer/shell/shortcut-list';
import { createFakeBridge } from '../../helpers/fake-bridge';
import appSource from '../../../src-renderer/App.vue?raw';
import sessionKeysSource from '../../../src-renderer/session-view/useSessionKeys.ts?raw';
import builderKeysSource from '../../../src-renderer/builder/useBuilderKeys.ts?raw';
import forkKeysSource from '../../../src-renderer/branches/fork-action.ts?raw';
import compareKeysSource from '../../../src-renderer/compare/CompareView.vue?raw';

/** A backend with no sessions and no fleets; `sessions.get` knows only `known`. */
function backend() {
  const fake = createFakeBridge((channel: ChannelName, input: unknown): Result<unknown> => {
    switch (channel) {
      case 'app.info':
        return {
          ok: true,
          value: {
            name: 'Fleetscope',
            version: '0.1.0',
            dataDir: '/data/my sessions',
            surface: 'browser',
            platform: 'linux',
          },
        };
      case 'settings.get':
        return {
          ok: true,
          value: {
            theme: 'light',
            retentionDays: null,
            maxMessagesPerSession: null,
            sidebarCollapsed: false,
            otlpExportEndpoint: null,
          },
        };
      case 'sessions.list':
        return { ok: true, value: { items: [], total: 0 } };
      case 'fleets.list':
        return { ok: true, value: [] };
      case 'sessions.get':
        return {
          ok: false,
          error: { code: 'not-found', message: `No session ${(input as { id: string }).id}` },
        };
      default:
        return { ok: false, error: { code: 'unavailable', message: channel } };
    }
  });
  setBridge(fake.bridge);
  return fake;
}

function press(key: string, init: KeyboardEventInit = {}, target: EventTarget = window): void {
  target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, ...init }));
}

describe('the app shell', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    window.location.hash = '#/sessions';
  });
  afterEach(() => vi.useRealTimers());

  it('opens the keyboard shortcut sheet on "?" and closes it on Escape, but not while typing', async () => {
    backend();
    const app = mount(App, { attachTo: document.body });
    await flushPromises();
    press('?', { shiftKey: true });
    await flushPromises();
    const sheet = app.get('[data-testid="shortcut-sheet"]');
    expect(sheet.attributes('role')).toBe('dialog');
    expect(sheet.text()).toContain('Play or pause the replay');
    expect(sheet.text()).toContain('Undo');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('shortcut-close');
    await app.get('[data-testid="shortcut-backdrop"]').trigger('keydown', { key: 'Escape' });
    expect(app.find('[data-testid="shortcut-sheet"]').exists()).toBe(false);

    const input = document.createElement('input');
    document.body.append(input);
    press('?', { shiftKey: true }, input);
    await flushPromises();
    expect(app.find('[data-testid="shortcut-sheet"]').exists()).toBe(false);
    input.remove();

    await app.get('[data-testid="shortcuts-button"]').trigger('click');
    expect(app.find('[data-testid="shortcut-sheet"]').exists()).toBe(true);
    app.unmount();
  });

  it('shows a not-found page for a session id that is not stored, with the way back', async () => {
    const fake = backend();
    window.location.hash = '#/sessions/no-such-session';
    const app = mount(App, { attachTo: document.body });
    await flushPromises();
    expect(app.get('[data-testid="not-found"]').text()).toContain('There is no such session here');
    expect(app.get('[data-testid="not-found-id"]').text()).toBe('no-such-session');
    expect(app.find('[data-testid="session-view"]').exists()).toBe(false);
    expect(fake.calls.some((entry) => entry.channel === 'sessions.get')).toBe(true);
    await app.get('[data-testid="not-found-back"]').trigger('click');
    await flushPromises();
    expect(window.location.hash).toBe('#/sessions');
    expect(app.find('[data-testid="not-found"]').exists()).toBe(false);
    app.unmount();
  });

  it('turns a lost host into a full page with the command that starts it again, and leaves when it is back', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'setTimeout', 'Date'] });
    const fake = backend();
    const app = mount(App, { attachTo: document.body });
    await flushPromises();
    fake.setConnection('offline');
    await vi.advanceTimersByTimeAsync(1500);
    // A short blip is not a lost host.
    expect(app.find('[data-testid="host-gone"]').exists()).toBe(false);
    await vi.advanceTimersByTimeAsync(4000);
    const page = app.get('[data-testid="host-gone"]');
    expect(page.text()).toContain("Fleetscope's host has stopped");
    const port = window.location.port;
    expect(app.get('[data-testid="host-gone-command"]').text()).toBe(
      ['npx fleetscope serve', port ? `--port ${port}` : '', "--data-dir '/data/my sessions'"]
        .filter(Boolean)
        .join(' '),
    );
    expect(page.text()).toContain('Open the link it prints');
    fake.setConnection('online');
    await vi.advanceTimersByTimeAsync(1000);
    expect(app.find('[data-testid="host-gone"]').exists()).toBe(false);
    app.unmount();
  });
});

describe('the shortcut sheet', () => {
  /** Keys the handlers react to, read from their sources, as the sheet's key caps. */
  function handledKeys(source: string): string[] {
    const keys = [
      ...[...source.matchAll(/case '([^']+)':/g)].map((match) => match[1]!),
      ...[...source.matchAll(/key [!=]== '([^']+)'/g)].map((match) => match[1]!),
    ];
    const caps: Record<string, string> = { ' ': 'Space', ArrowLeft: '←', ArrowRight: '→' };
    return [...new Set(keys.map((key) => caps[key] ?? (key.length === 1 ? key.toUpperCase() : key)))];
  }

  it('lists every key the app handles', () => {
    const listed = new Set(
      shortcutGroups('Ctrl').flatMap((group) => group.shortcuts.flatMap((shortcut) => shortcut.keys.flat())),
    );
    const sources = {
      'App.vue': appSource,
      useSessionKeys: sessionKeysSource,
      useBuilderKeys: builderKeysSource,
      'fork-action': forkKeysSource,
      'CompareView.vue': compareKeysSource,
    };
    for (const [file, source] of Object.entries(sources)) {
      const keys = handledKeys(source);
      expect(keys.length, file).toBeGreaterThan(0);
      for (const key of keys) expect(listed.has(key), `${key} from ${file}`).toBe(true);
    }
    // App.vue switches pages with Ctrl+1..3.
    for (const digit of ['1', '2', '3']) expect(listed.has(digit)).toBe(true);
  });

  it('names the modifier of the platform', () => {
    expect(modifierName('MacIntel')).toBe('⌘');
    expect(modifierName('Linux x86_64')).toBe('Ctrl');
    expect(shortcutGroups('⌘')[0]?.shortcuts[1]?.keys).toEqual([['⌘', '1']]);
  });
});
