import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serveForSuite, shot } from './session-helpers';

const SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;

async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

const focusedTestId = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? '');

/**
 * The stop word a new condition starts with is the one the Critic template says; the summary
 * follows typing; the Problems count is the number of rows, and each row takes you to its field.
 */
describe('the builder: stop word, live summary, problems (Chromium)', () => {
  const app = serveForSuite({ viewport: { width: 1024, height: 700 } });

  it('agrees on the stop word, follows typing and counts the problems it lists', async () => {
    const { page } = app;
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId('fleet-new').click();
    await page.getByTestId('builder-canvas').waitFor();
    await page.getByTestId('template-critic').dblclick();
    await page.getByTestId('agent-node-critic').waitFor();

    // No stop condition: one warning listed, and the count says 1.
    const rows = page.locator('[data-testid="issue-list"] li');
    await expect.poll(() => rows.count()).toBe(1);
    await expect(page.getByTestId('error-count').textContent()).resolves.toBe('1');
    const row = rows.first().locator('button');
    expect(await row.isDisabled()).toBe(false);
    expect(await row.evaluate((element) => getComputedStyle(element).opacity)).toBe('1');
    await shot(page, 'builder-problems-1024x700-light.png');
    // Clicking it goes to the field that fixes it.
    await row.click();
    await expect.poll(() => focusedTestId(page)).toBe('termination-add');

    await page.getByTestId('termination-add').click();
    const word = await page.getByTestId('condition-value-0.0').inputValue();
    await page.getByTestId('agent-node-critic').click();
    const prompt = await page.getByTestId('inspector-prompt').inputValue();
    expect(prompt).toContain(`"${word}"`);

    // The summary follows each keystroke, before the field is left.
    const value = page.getByTestId('condition-value-0.0');
    await value.click();
    await value.press('End');
    await value.pressSequentially('_NOW');
    await expect.poll(() => page.getByTestId('termination-summary').textContent()).toContain(`${word}_NOW`);
    await expect.poll(() => focusedTestId(page)).toBe('condition-value-0.0');
    await value.press('Tab');

    // An agent's error: the count still equals the rows, and the row focuses the agent's field.
    await page.getByTestId('agent-node-critic').click();
    await page.getByTestId('inspector-name').fill('user');
    await page.getByTestId('inspector-name').press('Enter');
    await expect
      .poll(() => page.locator('[data-testid="issue-list"] [data-testid="issue-error"]').count())
      .toBe(1);
    await expect(page.getByTestId('error-count').textContent()).resolves.toBe(String(await rows.count()));
    await page
      .getByTestId('builder-canvas')
      .locator('.vue-flow__pane')
      .click({ position: { x: 30, y: 400 } });
    await page.locator('[data-testid="issue-error"] button').click();
    await expect.poll(() => focusedTestId(page)).toBe('inspector-name');

    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await shot(page, `builder-stop-word-${size.name}-${scheme}.png`);
      }
    }
  });
});
