import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { IMPORT_UPLOAD_PATH } from '@shared/contract';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { exportWithMessages } from '../bench/import-hostile/payloads';
import { callHost, shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

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
    const toast = page.getByTestId('toast').filter({ hasText: 'nested.json' });
    await toast.first().waitFor({ timeout: 30_000 });
    expect(await toast.first().textContent()).toMatch(
      /Could not import nested\.json.*nests deeper than 64 levels/s,
    );
    expect(await sessionTotal()).toBe(before);
    expect(uploads).toHaveLength(2);
    expect(importFrames).toEqual([]);
    await shot(page, 'import-upload-refused.png');
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
