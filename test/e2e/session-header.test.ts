import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTempDir } from '../helpers/temp-dir';
import { runExample, serveForSuite, shot, useTheme } from './session-helpers';
import { openSession, waitForSamples } from './lanes-helpers';

const TOKEN = 'e2e-session-header-token-0123456789abcdef012';
/** A title as long as a run gives one (the first 80 characters of its task). */
const TASK = 'What do people building multi-agent systems need from their tools, day to day?';

/** Whether an element's text is cut (wider than its box). */
function isCut(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).evaluate((element) => element.scrollWidth > element.clientWidth + 1);
}

/** The vertical centre of an element, in page pixels. */
async function middle(page: Page, testId: string): Promise<number> {
  const box = await page.getByTestId(testId).boundingBox();
  if (!box) throw new Error(`${testId} is not shown`);
  return box.y + box.height / 2;
}

/**
 * The session header: the title first and whole at 1920 px, the stop reason whole, the connection
 * on the title's line, one steady height through a run (the longest waits may appear mid-run without
 * moving anything), and an Export menu that downloads the session from the view itself.
 */
describe('the session header (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1920, height: 1080 } });
  const temp = makeTempDir();

  it('keeps one height through a live run, the insights line included', { timeout: 180_000 }, async () => {
    const { page } = app;
    await runExample(page, 'Parallel research', TASK);
    // Every frame from the first draw to the end of the run: the heights of the header and of the
    // insights line below it.
    await page.evaluate(() => {
      const seen = { header: new Set<number>(), insights: new Set<number>() };
      (window as unknown as { headerHeights: typeof seen }).headerHeights = seen;
      const sample = () => {
        const header = document.querySelector('[data-testid="session-header"]');
        const insights = document.querySelector('[data-testid="session-insights"]');
        if (header) seen.header.add(Math.round(header.getBoundingClientRect().height));
        if (insights) seen.insights.add(Math.round(insights.getBoundingClientRect().height));
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 90_000 })
      .toBe('completed');
    const seen = await page.evaluate(() => {
      const { header, insights } = (
        window as unknown as { headerHeights: { header: Set<number>; insights: Set<number> } }
      ).headerHeights;
      return { header: [...header], insights: [...insights] };
    });
    expect(seen.header).toHaveLength(1);
    expect(seen.insights).toHaveLength(1);

    // At 1920 px the whole title and the whole stop reason show, and "online" sits on the title's line.
    expect(await page.getByTestId('session-title').textContent()).toBe(TASK);
    expect(await isCut(page, 'session-title')).toBe(false);
    expect(await isCut(page, 'stop-reason')).toBe(false);
    expect(
      Math.abs((await middle(page, 'session-connection')) - (await middle(page, 'session-title'))),
    ).toBeLessThan(6);
    expect(await page.getByTestId('session-last-activity').textContent()).toMatch(/last activity/);
    await shot(page, 'session-header-run-1920-light.png');
  });

  it('fits a sample at 1024 px and 1920 px: two lines, online beside the title', async () => {
    const { page, host } = app;
    const samples = await waitForSamples(host.port, TOKEN, ['Parallel research']);
    // The seeded sample, not the run above (the same fleet).
    const sample = samples.find(
      (session) => session.fleetName === 'Parallel research' && session.title !== TASK,
    )!;
    await openSession(page, sample.id);
    for (const [width, height] of [
      [1024, 700],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        // Messages, wall time and errors always; tokens, cost, tools and handoffs once they are not zero.
        expect(await page.getByTestId('counters').locator('dt').allTextContents()).toEqual([
          'messages',
          'time',
          'errors',
        ]);
        expect(
          Math.abs((await middle(page, 'session-connection')) - (await middle(page, 'session-title'))),
        ).toBeLessThan(6);
        const header = await page.getByTestId('session-header').boundingBox();
        expect(header!.height).toBeLessThan(70);
        if (width === 1920) expect(await isCut(page, 'session-title')).toBe(false);
        await shot(page, `session-header-${width}-${scheme}.png`);
      }
    }
    await useTheme(page, 'light');
  });

  it('exports the open session as Markdown from the session view', async () => {
    const { page } = app;
    await page.getByTestId('session-export').click();
    await page.getByTestId('session-export-menu').waitFor();
    await shot(page, 'session-header-export-menu-1920-light.png');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('session-export-md').click(),
    ]);
    const path = join(temp.dir, 'session.md');
    await download.saveAs(path);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('What do people building multi-agent systems need from their tools?');
    expect(await page.getByTestId('session-export-menu').count()).toBe(0);
    temp.remove();
  });
});
