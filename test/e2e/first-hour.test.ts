import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

const TOKEN = 'e2e-first-hour-token-0123456789abcdef0123';
const THEMES = ['light', 'dark'] as const;

/** Every screenshot here is taken at the smallest window the app is designed for. */
const SMALL = { width: 1024, height: 700 };

async function setTheme(page: Page, theme: (typeof THEMES)[number]): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
}

/** Elements of `selector` that stick out of the window (clipped for the user). */
async function outsideWindow(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((css) => {
    const out: string[] = [];
    for (const element of Array.from(document.querySelectorAll<HTMLElement>(css))) {
      const box = element.getBoundingClientRect();
      if (box.left < 0 || box.top < 0 || box.right > innerWidth || box.bottom > innerHeight)
        out.push(
          `${element.textContent?.trim().slice(0, 40)} at ${Math.round(box.left)},${Math.round(box.top)}`,
        );
    }
    return out;
  }, selector);
}

describe('the first hour in the browser', () => {
  const temp = makeTempDir();
  const dataDir = join(temp.dir, 'data');
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(dataDir, { token: TOKEN, viewport: SMALL, pageErrors }));
    await page.getByTestId('session-row').first().waitFor();
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('keeps row actions behind a labelled menu, in plain words', async () => {
    const row = page.getByTestId('session-row').first();
    await expect(row.textContent()).resolves.not.toMatch(/#|\botlp\b|max-messages|team-finished/);
    for (const theme of THEMES) {
      await setTheme(page, theme);
      await row.getByTestId('row-actions').click();
      const menu = row.getByTestId('row-actions-menu');
      await menu.waitFor();
      expect((await menu.getByRole('menuitem').allTextContents()).map((text) => text.trim())).toEqual([
        'Rename…',
        'Edit tags…',
        'Web page (HTML)',
        'Markdown',
        'Fleetscope JSON',
        'OpenTelemetry JSON',
        'Delete…',
      ]);
      expect(await outsideWindow(page, '[data-testid="row-actions-menu"]')).toEqual([]);
      await shot(page, `first-hour-actions-menu-${theme}.png`);
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
    }
    // Stop reasons read as sentences on every row.
    const reasons = await page.getByTestId('stop-reason').allTextContents();
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatch(/^[A-Z]/);
  });

  it('downloads an export directly, with one toast that says so (no server path)', async () => {
    await setTheme(page, 'light');
    const row = page.getByTestId('session-row').first();
    const title = (await row.getByTestId('open-session').textContent())?.trim() ?? '';
    await row.getByTestId('row-actions').click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByTestId('export-md').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.md$/);
    const file = await download.path();
    expect(readFileSync(file, 'utf8')).toContain(title);
    const toast = page.getByTestId('toast');
    await expect
      .poll(() => toast.getByTestId('toast-text').textContent())
      .toContain(`Downloaded “${title}” as Markdown (`);
    expect(await toast.textContent()).not.toContain(dataDir);
    expect(await page.getByTestId('toast').count()).toBe(1);
  });

  it('stacks toasts into one card with a count, the newest text on top', async () => {
    const rows = page.getByTestId('session-row');
    for (const [index, format] of [
      [1, 'html'],
      [2, 'otlp'],
    ] as const) {
      const row = rows.nth(index);
      await row.getByTestId('row-actions').click();
      await Promise.all([page.waitForEvent('download'), row.getByTestId(`export-${format}`).click()]);
    }
    await expect.poll(() => page.getByTestId('toast').getAttribute('data-count')).toBe('3');
    expect(await page.getByTestId('toast').count()).toBe(1);
    await expect(page.getByTestId('toast-text').textContent()).resolves.toContain(' as OpenTelemetry JSON (');
    await expect(page.getByTestId('toast-count').textContent()).resolves.toContain('2 more');
    for (const theme of THEMES) {
      await setTheme(page, theme);
      await shot(page, `first-hour-toasts-${theme}.png`);
    }
    await page.getByTestId('toast-count').click();
    expect(await page.getByTestId('toast-older').count()).toBe(2);
    expect(await outsideWindow(page, '[data-testid="toast-list"], [data-testid="toast"]')).toEqual([]);
    await shot(page, 'first-hour-toasts-open-dark.png');
    await page.getByTestId('toast-dismiss').click();
    expect(await page.getByTestId('toast').count()).toBe(0);
  });

  it('shows every keyboard shortcut on "?" and closes the sheet on Escape', async () => {
    for (const theme of THEMES) {
      await setTheme(page, theme);
      // Keys typed into a field are text, not shortcuts: start from the page itself.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('?');
      const sheet = page.getByTestId('shortcut-sheet');
      await sheet.waitFor();
      for (const text of ['Play or pause the replay', 'Go to Fleets', 'Undo', 'Stop a live run'])
        expect(await sheet.textContent()).toContain(text);
      expect(await outsideWindow(page, '[data-testid="shortcut-sheet"] h2')).toEqual([]);
      await shot(page, `first-hour-shortcuts-${theme}.png`);
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
    }
  });

  it('answers an unknown session id with a not-found page and a way back', async () => {
    for (const theme of THEMES) {
      await setTheme(page, theme);
      await page.evaluate(() => (window.location.hash = '#/sessions/no-such-session-0000'));
      const notFound = page.getByTestId('not-found');
      await notFound.waitFor();
      expect(await page.getByTestId('not-found-id').textContent()).toBe('no-such-session-0000');
      await shot(page, `first-hour-not-found-${theme}.png`);
      await page.getByTestId('not-found-back').click();
      await page.getByTestId('session-row').first().waitFor();
    }
  });

  it('explains, as a web page with the same 401, how to open the printed link when the token is missing', async () => {
    const stranger = await launchBrowser({ colorScheme: 'dark' });
    try {
      const tab = await stranger.context.newPage();
      await tab.setViewportSize(SMALL);
      const response = await tab.goto(`http://127.0.0.1:${host.port}/`);
      expect(response?.status()).toBe(401);
      expect(response?.headers()['content-type']).toContain('text/html');
      await expect(tab.locator('h1').textContent()).resolves.toBe('Open Fleetscope with the link it printed');
      expect(await tab.textContent('body')).toContain('npx fleetscope serve');
      await tab.screenshot({
        path: join(process.cwd(), 'test-artifacts', 'e2e', 'first-hour-no-token-dark.png'),
      });
    } finally {
      await stranger.close();
    }
  });

  it('turns a stopped host into a full page that says how to reconnect, and recovers when it is back', async () => {
    await setTheme(page, 'light');
    const port = host.port;
    await host.stop();
    const gone = page.getByTestId('host-gone');
    await gone.waitFor({ timeout: 20_000 });
    expect(await gone.textContent()).toContain("Fleetscope's host has stopped");
    const command = await page.getByTestId('host-gone-command').textContent();
    expect(command).toBe(`npx fleetscope serve --port ${port} --data-dir ${dataDir}`);
    for (const theme of THEMES) {
      await setTheme(page, theme);
      await shot(page, `first-hour-host-gone-${theme}.png`);
    }
    host = await spawnHost(dataDir, { port, token: TOKEN });
    await gone.waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
