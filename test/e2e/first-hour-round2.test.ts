import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { runExample, serveInChromium, shootAll, stopServed, type ChromiumBrowser } from './session-helpers';

const TOKEN = 'e2e-first-hour-round2-token-0123456789abc';
async function chooseFleet(page: Page, name: string): Promise<void> {
  const select = page.getByTestId('fleet-select');
  await select.locator('option', { hasText: name }).first().waitFor({ state: 'attached' });
  const value = await select.locator('option', { hasText: name }).first().getAttribute('value');
  await select.selectOption(value ?? '');
}

describe('the first hour, round 2: run form, errors and the demo in the browser', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const shared = join(temp.dir, 'notes');

  beforeAll(async () => {
    mkdirSync(shared);
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      viewport: { width: 1024, height: 700 },
      pageErrors,
    }));
  });
  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('says a scripted demo is canned, counts a long task against its limit, and remembers the folder per fleet', async () => {
    await page.getByTestId('nav-sessions').click();
    await chooseFleet(page, 'Debate');
    await expect(page.getByTestId('scripted-note').textContent()).resolves.toMatch(
      /canned lines.*task is quoted/,
    );

    const task = page.getByTestId('task-input');
    await task.fill('x'.repeat(95_000));
    await expect(page.getByTestId('task-limit').textContent()).resolves.toBe('5,000 characters left');
    expect(await page.getByTestId('run-button').isEnabled()).toBe(true);
    await task.fill('x'.repeat(100_250));
    await expect(page.getByTestId('task-limit').textContent()).resolves.toMatch(
      /^250 characters over the limit of 100,000/,
    );
    expect(await page.getByTestId('run-button').isEnabled()).toBe(false);
    await shootAll(page, 'round2-run-form-over-limit');
    await task.fill('Should we adopt a four-day week?');
    expect(await page.getByTestId('task-limit').count()).toBe(0);

    // A browser page cannot learn a folder's path: the folder is typed, with no Choose… button.
    expect(await page.getByTestId('run-folder-choose').count()).toBe(0);
    // A folder typed for the Debate comes back when the Debate is chosen again, not for another fleet.
    await page.getByTestId('run-folder').fill(shared);
    await chooseFleet(page, 'Code review');
    expect(await page.getByTestId('run-folder').inputValue()).toBe('');
    await chooseFleet(page, 'Debate');
    expect(await page.getByTestId('run-folder').inputValue()).toBe(shared);
  });

  it('shows a failed start once, beside the button, and clears it when the cause is fixed', async () => {
    await page.getByTestId('run-folder').fill(join(temp.dir, 'no-such-folder'));
    await page.getByTestId('run-button').click();
    const alert = page.getByTestId('new-run').getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('There is no folder');
    // Once: no toast repeats it.
    expect(await page.getByTestId('toast').count()).toBe(0);
    await shootAll(page, 'round2-run-form-error');
    await page.getByTestId('run-folder').fill(shared);
    expect(await alert.count()).toBe(0);
  });

  it('runs the Debate demo about the task it was given, with toasts kept clear of the replay bar', async () => {
    await runExample(page, 'Debate', 'Should we adopt a four-day week?');
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const transcript = (await page.getByTestId('transcript').textContent()) ?? '';
    expect(transcript).toContain('"Should we adopt a four-day week?"');
    expect(transcript).not.toMatch(/remote work/i);
    // The toast stack's bottom edge sits above the replay bar's top edge.
    const clearance = await page.evaluate(() => {
      const bar = document.querySelector('[data-testid="replay-bar"]')!.getBoundingClientRect();
      const bottom = parseFloat(
        getComputedStyle(document.documentElement).getPropertyValue('--toast-bottom'),
      );
      return { toastBottomEdge: window.innerHeight - bottom, barTop: bar.top };
    });
    expect(clearance.toastBottomEdge).toBeLessThanOrEqual(clearance.barTop);
    await shootAll(page, 'round2-debate-follows-task');
    expect(pageErrors).toEqual([]);
  });
});
