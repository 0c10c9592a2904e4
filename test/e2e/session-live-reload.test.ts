import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, serveInChromium, shot, stopServed, type ChromiumBrowser } from './session-helpers';

const TOKEN = 'e2e-live-reload-token-0123456789abcdef0123';
/** Page loads, each of a session whose run is streaming as the page loads. */
const LOADS = 10;

/**
 * Holds the first message of every WebSocket (the host's welcome) for a second, the messages after
 * it behind it, and marks the page once its socket is open: a view opened in between opens while
 * the bridge is connecting, after its hello has left, as on a page whose scripts keep the thread
 * busy while it connects.
 */
const HOLD_WELCOME = `(() => {
  const Native = window.WebSocket;
  const onmessage = Object.getOwnPropertyDescriptor(Native.prototype, 'onmessage');
  const onopen = Object.getOwnPropertyDescriptor(Native.prototype, 'onopen');
  class HeldWelcome extends Native {}
  Object.defineProperty(HeldWelcome.prototype, 'onmessage', {
    get() { return onmessage.get.call(this); },
    set(handler) {
      // The welcome and whatever follows it wait, in order, until the welcome is let through.
      let held = null;
      onmessage.set.call(this, (event) => {
        if (held === undefined) return handler(event);
        if (held !== null) return held.push(event);
        held = [event];
        setTimeout(() => {
          const waiting = held;
          held = undefined;
          for (const each of waiting) handler(each);
        }, 1000);
      });
    },
  });
  Object.defineProperty(HeldWelcome.prototype, 'onopen', {
    get() { return onopen.get.call(this); },
    set(handler) {
      onopen.set.call(this, (event) => {
        window.__socketOpen = true;
        handler(event);
      });
    },
  });
  window.WebSocket = HeldWelcome;
})();`;

/** Two scripted agents taking turns, each reply streamed for about half a second. */
const fleet: FleetInput = {
  version: 1,
  name: 'ping-pong',
  agents: ['ping', 'pong'].map((name) => ({
    name,
    type: 'scripted',
    loop: true,
    script: [{ content: 'A reply that streams in small pieces. '.repeat(4), chunkSize: 8, delayMs: 25 }],
  })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 4 },
};

describe('a live session page loaded while its run streams (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      initScript: HOLD_WELCOME,
      pageErrors,
      consoleErrors: true,
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  const call = <T>(channel: string, payload: unknown) => callHost<T>(host.port, TOKEN, channel, payload);

  it(`shows every event of the run, its state on the Pause button, and its end, on each of ${LOADS} page loads`, async () => {
    const outcomes: string[] = [];
    for (let load = 0; load < LOADS; load++) {
      const { sessionId } = await call<{ sessionId: string }>('runs.start', {
        source: { fleet },
        task: `Load ${load}`,
      });
      // Held paused while the page loads, so the rest of the run streams after the load.
      await call('runs.control', { sessionId, action: 'pause' });
      await page.goto('about:blank');
      if (load % 2 === 0) {
        // A whole page load of the session.
        await page.goto(`${host.url}#/sessions/${sessionId}`);
      } else {
        // The sessions page loads, and the session is opened once the socket is open and before
        // the host's welcome has arrived.
        await page.goto(host.url);
        await page.waitForFunction(() => (window as { __socketOpen?: boolean }).__socketOpen === true);
        await page.evaluate((id) => (location.hash = `#/sessions/${id}`), sessionId);
      }
      await page.getByTestId('session-view').waitFor();
      const button = page.getByTestId('run-pause');
      await expect.poll(() => button.textContent(), { timeout: 20_000 }).toContain('Resume');
      // Resumed from the page: the view follows the rest of the run to its end.
      await button.click();
      const status = page.getByTestId('session-status');
      await expect.poll(() => status.getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
      const stored = await call<{ lastSeq: number }>('sessions.events', {
        id: sessionId,
        afterSeq: 0,
        limit: 1,
      });
      const shown = page.getByTestId('replay-position');
      await expect
        .poll(() => shown.getAttribute('data-last-seq'), { timeout: 10_000 })
        .toBe(String(stored.lastSeq));
      expect(stored.lastSeq).toBeGreaterThan(15);
      outcomes.push(
        `${await status.getAttribute('data-status')} ${await shown.getAttribute('data-last-seq')}`,
      );
    }
    await shot(page, 'session-live-reload.png');
    expect(outcomes).toHaveLength(LOADS);
  }, 300_000);

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
