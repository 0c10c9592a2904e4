import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { IMPORT_UPLOAD_PATH } from '@shared/contract';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { exportWithMessages } from '../bench/import-hostile/payloads';
import {
  callHost,
  openApp,
  shot,
  serveInChromium,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';

const TOKEN = 'e2e-import-upload-token-0123456789abcdef01';

describe('importing a transcript from the page (streamed upload)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  /** Import uploads the page made, and WebSocket frames it sent that carried an import. */
  const uploads: Array<{ method: string; path: string; contentType: string | undefined }> = [];
  const importFrames: string[] = [];

  const sessionTotal = async () =>
    (await callHost<{ total: number }>(host.port, TOKEN, 'sessions.list', {})).total;
  const uploadsDir = () => join(temp.dir, 'data', 'uploads');
  const leftInUploads = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);

  /** Every text the import progress showed from now on (recorded in the page as it changes). */
  async function recordProgress(target: Page): Promise<() => Promise<string[]>> {
    await target.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      const note = () => {
        const status = document.querySelector<HTMLElement>('[data-testid="import-progress"]');
        const parts = status ? Array.from(status.querySelectorAll('span'), (part) => part.textContent) : [];
        const text = status ? `${status.dataset.phase}: ${parts.join(' | ')}` : '';
        if (text && seen.at(-1) !== text) seen.push(text);
      };
      new MutationObserver(note).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    return () => target.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
  }

  /** Holds the page's uploads to `bytesPerSecond` (Chromium's network emulation); null lifts it. */
  async function throttleUploads(target: Page, bytesPerSecond: number | null): Promise<void> {
    const cdp = await target.context().newCDPSession(target);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: bytesPerSecond ?? -1,
    });
  }

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      viewport: { width: 1024, height: 700 },
      pageErrors,
      open: false,
    }));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === IMPORT_UPLOAD_PATH) {
        uploads.push({
          method: request.method(),
          path: url.pathname,
          contentType: request.headers()['content-type'],
        });
      }
    });
    page.on('websocket', (socket) =>
      socket.on('framesent', (frame) => {
        const text = String(frame.payload);
        if (text.includes('sessions.importData')) importFrames.push(text.slice(0, 80));
      }),
    );
    await page.goto(host.url);
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('uploads a 20,000-message export and opens the imported session', async () => {
    const text = exportWithMessages(20_000).replace('Bench 20000 messages', 'Uploaded from the page');
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('import-button').waitFor();
    const before = await sessionTotal();
    await page.getByTestId('import-file').setInputFiles({
      name: 'uploaded export.json',
      mimeType: 'application/json',
      buffer: Buffer.from(text),
    });
    await page.getByTestId('session-view').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('session-title').textContent(), { timeout: 30_000 })
      .toBe('Uploaded from the page');
    expect(await sessionTotal()).toBe(before + 1);
    // The file went as an upload, never as a WebSocket frame.
    expect(uploads).toEqual([
      { method: 'POST', path: IMPORT_UPLOAD_PATH, contentType: 'application/octet-stream' },
    ]);
    expect(importFrames).toEqual([]);
    await shot(page, 'import-upload-opened.png');
  });

  it('shows the host refusal of a hostile file and imports nothing', async () => {
    await page.getByTestId('back').click();
    await page.getByTestId('import-button').waitFor();
    const before = await sessionTotal();
    const nested = '['.repeat(512 * 1024) + ']'.repeat(512 * 1024);
    await page.getByTestId('import-file').setInputFiles({
      name: 'nested.json',
      mimeType: 'application/json',
      buffer: Buffer.from(nested),
    });
    // A failure shows once, on the page's error line (not as a toast too).
    const refusal = page.getByTestId('sessions-error').filter({ hasText: 'nested.json' });
    await refusal.first().waitFor({ timeout: 30_000 });
    expect(await refusal.first().textContent()).toMatch(
      /Could not import nested\.json.*nests deeper than 64 levels/s,
    );
    expect(await sessionTotal()).toBe(before);
    expect(uploads).toHaveLength(2);
    expect(importFrames).toEqual([]);
    await shot(page, 'import-upload-refused.png');
  });

  it("shows the upload's own progress (bytes sent of the size) and then the import's", async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('import-button').waitFor();
    const before = await sessionTotal();
    const text = exportWithMessages(20_000).replace('Bench 20000 messages', 'Watched while uploading');
    const seen = await recordProgress(page);
    await throttleUploads(page, 1024 * 1024);
    await page.getByTestId('import-file').setInputFiles({
      name: 'watched upload.json',
      mimeType: 'application/json',
      buffer: Buffer.from(text),
    });
    const progress = page.getByTestId('import-progress');
    await progress.and(page.locator('[data-phase="upload"]')).waitFor();
    await expect
      .poll(() => page.getByTestId('import-amount').textContent(), { timeout: 30_000 })
      .toMatch(/^[1-9][\d.]* of 6\.8 MB$/);
    await shot(page, 'import-upload-progress-light.png');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await shot(page, 'import-upload-progress-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });
    await throttleUploads(page, null);
    await page.getByTestId('session-view').waitFor({ timeout: 60_000 });
    // The view opens at once; its header fills in when the session's summary has been read.
    await expect.poll(() => page.getByTestId('session-title').textContent()).toBe('Watched while uploading');
    expect(await sessionTotal()).toBe(before + 1);
    const texts = await seen();
    const uploading = texts.filter((entry) => entry.startsWith('upload: Uploading watched upload.json | '));
    expect(uploading.length).toBeGreaterThan(1);
    expect(uploading.every((entry) => / \| \d+\.\d of 6\.8 MB$/.test(entry))).toBe(true);
    // The host's import follows the upload in the same place.
    const importing = texts.findIndex((entry) => entry.startsWith('import: Importing watched upload.json'));
    expect(importing).toBeGreaterThan(texts.indexOf(uploading[0] as string));
  });

  it('cancels during the upload, keeping no temp file and no session', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('import-button').waitFor();
    const before = await sessionTotal();
    await throttleUploads(page, 128 * 1024);
    await page.getByTestId('import-file').setInputFiles({
      name: 'cancelled upload.json',
      mimeType: 'application/json',
      buffer: Buffer.from(exportWithMessages(20_000).replace('Bench 20000', 'Cancelled upload')),
    });
    await page.getByTestId('import-progress').and(page.locator('[data-phase="upload"]')).waitFor();
    // The host has begun its temp file: the upload is under way on both ends.
    await expect.poll(leftInUploads, { timeout: 30_000 }).toHaveLength(1);
    await page.getByTestId('import-stop').click();
    await page
      .getByTestId('toast')
      .filter({ hasText: 'Import of cancelled upload.json cancelled.' })
      .waitFor();
    await page.getByTestId('import-progress').waitFor({ state: 'hidden' });
    await expect.poll(leftInUploads, { timeout: 30_000 }).toEqual([]);
    expect(await sessionTotal()).toBe(before);
    expect(await page.getByTestId('import-button').isEnabled()).toBe(true);
    await throttleUploads(page, null);
  });

  it('cancels the host import when the page that asked is closed mid-import', async () => {
    const before = await sessionTotal();
    const other = await browser.context.newPage();
    await openApp(other, host.url);
    await other.getByTestId('nav-sessions').click();
    await other.getByTestId('import-button').waitFor();
    await other.getByTestId('import-file').setInputFiles({
      name: 'closed tab.json',
      mimeType: 'application/json',
      buffer: Buffer.from(exportWithMessages(60_000).replace('Bench 60000', 'Closed tab')),
    });
    // Past half of the import's progress its session is being written.
    await expect
      .poll(
        async () => {
          const amount =
            (await other
              .getByTestId('import-amount')
              .textContent()
              .catch(() => '')) ?? '';
          return Number(/^(\d+)%$/.exec(amount)?.[1] ?? 0);
        },
        { timeout: 120_000, interval: 20 },
      )
      .toBeGreaterThan(50);
    await other.close();
    // The temp file goes once the import has ended, cancelled.
    await expect.poll(leftInUploads, { timeout: 60_000 }).toEqual([]);
    expect(await sessionTotal()).toBe(before);
    // The other page carries on.
    await page
      .getByTestId('back')
      .click()
      .catch(() => undefined);
    expect(await page.getByTestId('import-button').isEnabled()).toBe(true);
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
