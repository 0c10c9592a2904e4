import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import { callHost, serveForSuite, shot, SHOT_SIZES, useTheme } from './session-helpers';
import { listSessions, openSession } from './lanes-helpers';

const TOKEN = 'e2e-sessions-space-token-0123456789abcdef01';

/** Whether a select's chosen option is drawn whole (its text plus room for the arrow fits the box). */
function optionFits(page: Page, testId: string): Promise<{ text: string; needs: number; has: number }> {
  return page.getByTestId(testId).evaluate((element) => {
    const select = element as HTMLSelectElement;
    const text = select.selectedOptions[0]?.textContent?.trim() ?? '';
    const probe = document.createElement('span');
    probe.style.font = getComputedStyle(select).font;
    probe.style.whiteSpace = 'pre';
    probe.style.position = 'absolute';
    probe.textContent = text;
    document.body.append(probe);
    const needs = probe.getBoundingClientRect().width + 28;
    probe.remove();
    return { text, needs, has: select.getBoundingClientRect().width };
  });
}

/**
 * The sessions page uses a wide window, keeps its filters' labels whole, shows whole option texts
 * and shows a 95 KB task as a short preview with "Show more".
 */
describe('the sessions page uses the room it has (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1920, height: 1080 } });

  it('is wide at 1920, keeps "To" on one line, shows "Scripted (built in, no key)" whole', async () => {
    const { page } = app;
    for (const size of SHOT_SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await page.evaluate(() => (window.location.hash = '#/sessions'));
        await page.getByTestId('session-row').first().waitFor();
        await page.getByTestId('mode-agent').check();
        const fits = await optionFits(page, 'agent-provider');
        expect(fits.text).toBe('Scripted (built in, no key)');
        expect(fits.has, `"${fits.text}" needs ${fits.needs} px`).toBeGreaterThanOrEqual(fits.needs);
        // "To" and its date field sit on one line.
        const to = page.locator('label.date', { hasText: 'To' });
        const label = await to.boundingBox();
        const field = await to.locator('input').boundingBox();
        expect(label!.height).toBeLessThan(field!.height + 8);
        const width = (await page.locator('.sessions-page').boundingBox())!.width;
        if (size.width === 1920) expect(width).toBeGreaterThan(1500);
        await shot(page, `sessions-page-${size.name}-${scheme}.png`);
        await page.getByTestId('mode-fleet').check();
      }
    }
  });

  it('shows a 95 KB task as a preview with "Show more", and all of it on request', async () => {
    const { page, host } = app;
    const fleet = JSON.parse(
      readFileSync(join('resources', 'fleets', 'scripted', 'debate.json'), 'utf8'),
    ) as FleetInput;
    const paragraph = 'Compare these two plans line by line and say which one ships sooner. ';
    // The run form's limit is 100,000 characters; this is just under it.
    const task = Array.from({ length: 1400 }, (_, line) => `${line + 1}. ${paragraph}`)
      .join('\n')
      .slice(0, 97_000);
    expect(task.length).toBeGreaterThan(95_000);
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet },
      task,
    });
    await expect
      .poll(async () => (await listSessions(host.port, TOKEN)).find((s) => s.id === sessionId)?.status, {
        timeout: 30_000,
      })
      .not.toBe('running');
    for (const size of SHOT_SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await openSession(page, sessionId);
        // The transcript opens at its end; the task is its first message.
        await page.getByTestId('transcript-scroller').evaluate((element) => element.scrollTo(0, 0));
        const message = page.locator('[data-testid="message"][data-kind="task"]').first();
        await message.waitFor();
        const shown = (await message.getByTestId('message-body').textContent()) ?? '';
        expect(shown.length).toBeLessThan(2_000);
        await expect
          .poll(() => message.getByTestId('show-more').textContent())
          .toMatch(/Show more \([\d.]+ KB more\)/);
        await shot(page, `sessions-long-task-${size.name}-${scheme}.png`);
      }
    }
    const message = page.locator('[data-testid="message"][data-kind="task"]').first();
    await message.getByTestId('show-more').click();
    await expect
      .poll(async () => ((await message.getByTestId('message-body').textContent()) ?? '').length)
      .toBeGreaterThan(95_000);
    await message.getByTestId('show-less').click();
    expect(((await message.getByTestId('message-body').textContent()) ?? '').length).toBeLessThan(2_000);
  });
});
