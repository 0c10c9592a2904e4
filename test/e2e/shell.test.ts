import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

describe('the app shell in Chromium, served by `fleetscope serve`', () => {
  const temp = makeTempDir();
  const dataDir = join(temp.dir, 'data');
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const consoleErrors: string[] = [];
  /** While the host is stopped on purpose, a refused request is what the test provokes. */
  let hostDown = false;

  beforeAll(async () => {
    // Its own error collection: it lets the refusals it provokes through, and names each URL.
    ({ host, browser, page } = await serveInChromium(dataDir, {
      token: 'e2e-token-0123456789abcdef0123456789',
      open: false,
    }));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      if (hostDown && text.includes('net::ERR_CONNECTION_REFUSED')) return;
      consoleErrors.push(`${text} (${message.location().url || 'no url'})`);
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('renders the sidebar, the sample sessions of a first launch and a connected status bar', async () => {
    await page.goto(host.url);
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
    for (const name of ['Sessions', 'Fleets', 'Settings']) {
      await expect(page.getByRole('button', { name }).isVisible()).resolves.toBe(true);
    }
    await page.getByTestId('session-row').first().waitFor();
    expect(await page.getByTestId('session-row').count()).toBeGreaterThanOrEqual(6);
    await expect(
      page.getByText('Does remote work make teams more productive?').count(),
    ).resolves.toBeGreaterThan(0);
    await expect(page.getByTestId('app-info').textContent()).resolves.toContain(dataDir);
    expect(new URL(page.url()).searchParams.get('token')).toBeNull();
    await page.screenshot({ path: join(ARTIFACTS, 'shell-sessions.png') });
  });

  it('keeps a changed setting across a reload', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('theme-select').selectOption('dark');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.screenshot({ path: join(ARTIFACTS, 'shell-settings-dark.png') });

    await page.reload();
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
    await expect.poll(() => page.getByTestId('theme-select').inputValue()).toBe('dark');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(page.url()).toContain('#/settings');
  });

  it('follows the OS colour scheme when the theme is "system"', async () => {
    await page.getByTestId('theme-select').selectOption('system');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
  });

  it('shows offline when the host stops and reconnects when it restarts', async () => {
    const port = host.port;
    hostDown = true;
    await host.stop();
    await page.getByTestId('connection-state').and(page.locator('[data-state="offline"]')).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'shell-offline.png') });
    host = await spawnHost(dataDir, { port, token: 'e2e-token-0123456789abcdef0123456789' });
    await page
      .getByTestId('connection-state')
      .and(page.locator('[data-state="online"]'))
      .waitFor({ timeout: 15_000 });
    hostDown = false;
    await page.getByTestId('theme-select').selectOption('dark');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  });

  it('logged no errors in the page', () => {
    expect(consoleErrors.filter((text) => !/WebSocket connection .* failed/.test(text))).toEqual([]);
  });
});
