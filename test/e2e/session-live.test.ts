import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { runExample, shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

describe('a live run in the session view (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      pageErrors,
      consoleErrors: true,
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('runs a 3-agent example fleet and draws nodes, edges and streaming text as it goes', async () => {
    await runExample(page, 'Debate', 'Is tea better than coffee?');
    for (const agent of ['optimist', 'skeptic', 'moderator']) {
      await page.locator(`[data-testid="agent-node"][data-agent="${agent}"]`).waitFor();
    }
    // Read the growing text in the same check that finds it: a reply can finish between two calls.
    const streaming = await page.waitForFunction(
      () => document.querySelector('[data-testid="agent-streaming"]')?.textContent || null,
      undefined,
      { timeout: 15_000 },
    );
    expect(String(await streaming.jsonValue()).length).toBeGreaterThan(0);
    await shot(page, 'session-live-streaming.png');
    await page.getByTestId('edge-label').first().waitFor();
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 20_000 }).toBeGreaterThan(2);
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    expect(await page.getByTestId('edge-label').count()).toBeGreaterThan(1);
    expect(await page.getByTestId('stop-reason').textContent()).not.toBe('');
    await shot(page, 'session-live-completed.png');
  });

  it('filters the transcript to an agent selected on the graph', async () => {
    await page.locator('[data-testid="agent-node"][data-agent="skeptic"]').click();
    await page.getByTestId('transcript-filter').waitFor();
    const senders = await page
      .getByTestId('message')
      .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.from));
    expect(senders.length).toBeGreaterThan(0);
    await page.getByTestId('clear-filter').click();
  });

  it('refuses a follow-up no agent can answer, and changes nothing', async () => {
    // The example's agents are scripted and have said all their lines: a follow-up would get no
    // reply, so it is refused with the reason and the session stays as it was.
    const before = await page.getByTestId('message').count();
    const status = await page.getByTestId('session-status').getAttribute('data-status');
    await page.getByTestId('follow-up-task').fill('Now consider green tea.');
    await page.getByTestId('follow-up-send').click();
    // Said once, where the view shows its errors (no longer also as a toast).
    await expect
      .poll(() => page.getByText(/nothing to continue/).count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await page.getByTestId('message').count()).toBe(before);
    expect(await page.getByTestId('session-status').getAttribute('data-status')).toBe(status);
  });

  it('stops a running session from the run controls', async () => {
    await page.getByTestId('back').click();
    await runExample(page, 'Debate', 'A long one, please');
    await page.getByTestId('run-stop').click({ timeout: 10_000 });
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 20_000 })
      .toMatch(/stopped|completed/);
    await shot(page, 'session-stopped.png');
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
