import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '@shared/domain';
import { startOpenAiStub, type OpenAiStub } from '../helpers/openai-stub';
import { callHost, runToEnd, serveForSuite, shot } from './session-helpers';
import { openSession, showLens } from './lanes-helpers';

const TOKEN = 'e2e-cost-settings-token-0123456789abcdef0123456';

async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

/**
 * Prices a user sets (Settings › Prices), the builder's budget conditions and the graph's edge
 * costs, as a new user would try them against the stub model server.
 */
describe('prices, budgets and edge costs (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1280, height: 900 } });
  let stub: OpenAiStub;

  beforeAll(async () => {
    stub = await startOpenAiStub();
    stub.respondWith((request) => ({
      type: 'text',
      content: `Reply ${request.body?.messages?.length ?? 0}: the next step of the plan.`,
      usage: { prompt: 400, completion: 50 },
    }));
  });
  afterAll(() => stub.close());

  it(
    'sets a price in Settings, refuses a bad one, and a run is priced by it',
    { timeout: 180_000 },
    async () => {
      const { page, host } = app;
      await page.getByTestId('nav-settings').click();
      const prices = page.getByTestId('price-overrides');
      await prices.scrollIntoViewIfNeeded();
      expect(await prices.getByTestId('price-empty').isVisible()).toBe(true);

      // A bad price says what is wrong and saves nothing.
      await prices.getByTestId('price-provider').fill('custom');
      await prices.getByTestId('price-model').fill('house-model');
      await prices.getByTestId('price-input').fill('-2');
      await prices.getByTestId('price-output').fill('1');
      await prices.getByTestId('price-output').press('Enter');
      expect(await prices.getByTestId('price-error').textContent()).toContain('The input price must be');
      const before = await callHost<{ priceOverrides: unknown[] }>(host.port, TOKEN, 'settings.get', {});
      expect(before.priceOverrides).toEqual([]);

      // Corrected, it is saved and listed.
      await prices.getByTestId('price-input').fill('2');
      await prices.getByTestId('price-output').fill('10');
      await prices.getByTestId('price-add').click();
      await expect.poll(() => prices.getByTestId('price-row').count()).toBe(1);
      // A local model at 0 with the Free button.
      await prices.getByTestId('price-provider').fill('ollama');
      await prices.getByTestId('price-model').fill('*');
      await prices.getByTestId('price-free').click();
      await prices.getByTestId('price-add').click();
      await expect.poll(() => prices.getByTestId('price-row').count()).toBe(2);
      const saved = await callHost<{ priceOverrides: unknown[] }>(host.port, TOKEN, 'settings.get', {});
      expect(saved.priceOverrides).toEqual([
        { provider: 'custom', model: 'house-model', inputPerMTok: 2, outputPerMTok: 10 },
        { provider: 'ollama', model: '*', inputPerMTok: 0, outputPerMTok: 0 },
      ]);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await prices.scrollIntoViewIfNeeded();
        await shot(page, `cost-settings-prices-1280-${scheme}.png`);
      }
      await useTheme(page, 'light');

      // A run on that model is priced by it: 4 calls of 400 in and 50 out at $2 and $10 per M.
      const provider = { id: 'custom', baseUrl: stub.baseUrl, model: 'house-model' };
      const fleet: FleetInput = {
        version: 1,
        name: 'House pair',
        agents: [
          { name: 'planner', type: 'llm', systemPrompt: 'You plan.', provider },
          { name: 'critic', type: 'llm', systemPrompt: 'You criticise.', provider },
        ],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 5 },
      };
      const { sessionId, status } = await runToEnd(host.port, TOKEN, fleet, 'Plan the move', 60_000);
      expect(status).toBe('completed');
      const usage = await callHost<{ total: { cost: number; unpricedCalls: number } }>(
        host.port,
        TOKEN,
        'sessions.usage',
        { id: sessionId },
      );
      expect(usage.total.unpricedCalls).toBe(0);
      expect(usage.total.cost).toBeCloseTo((4 * (400 * 2 + 50 * 10)) / 1_000_000, 12);

      // The graph's Cost toggle puts each edge's cost on its label.
      await openSession(page, sessionId);
      await showLens(page, 'graph');
      const labels = page.getByTestId('edge-label');
      await labels.first().waitFor();
      expect((await labels.allTextContents()).some((text) => text.includes('$'))).toBe(false);
      const toggle = page.getByTestId('toggle-edge-costs');
      await toggle.click();
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      const costs = page.getByTestId('edge-cost');
      await expect.poll(() => costs.count()).toBe(2);
      for (const text of await costs.allTextContents()) expect(text).toMatch(/^\$0\.\d+$/);
      // Labels keep clear of each other, and each cost shows whole (nothing drawn over it).
      await expect
        .poll(() =>
          page.evaluate(() => {
            const boxes = Array.from(document.querySelectorAll('[data-testid="edge-label"]')).map((element) =>
              element.getBoundingClientRect(),
            );
            const meet = (a: DOMRect, b: DOMRect) =>
              a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
            const crossing = boxes.flatMap((box, index) =>
              boxes.slice(index + 1).filter((other) => meet(box, other)),
            );
            const hidden = Array.from(document.querySelectorAll('[data-testid="edge-cost"]')).filter(
              (cost) => {
                const box = cost.getBoundingClientRect();
                return [box.left + 2, box.right - 2].some((x) => {
                  const top = document.elementFromPoint(x, box.top + box.height / 2);
                  return !top || !cost.contains(top);
                });
              },
            );
            return crossing.length + hidden.length;
          }),
        )
        .toBe(0);
      // Every card shows whole in the pane once its figures arrived (they widen it).
      await expect
        .poll(() =>
          page.evaluate(() => {
            const pane = document.querySelector('[data-testid="agent-graph"]')!.getBoundingClientRect();
            return Array.from(document.querySelectorAll('[data-testid="agent-graph"] .vue-flow__node'))
              .map((node) => node.getBoundingClientRect())
              .filter((box) => box.left < pane.left - 0.5 || box.right > pane.right + 0.5).length;
          }),
        )
        .toBe(0);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await shot(page, `cost-graph-edge-costs-1280-${scheme}.png`);
      }
      await useTheme(page, 'light');
      // The choice is kept: off again, the labels show counts only.
      await toggle.click();
      await expect.poll(() => costs.count()).toBe(0);
    },
  );

  it('sets a cost budget and one agent’s token budget in the builder', { timeout: 120_000 }, async () => {
    const { page } = app;
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId('fleet-new').click();
    await page.getByTestId('builder-canvas').waitFor();
    await page.getByTestId('template-critic').dblclick();
    await page.getByTestId('agent-node-critic').waitFor();
    await page.getByTestId('termination-add').click();
    await page.getByTestId('condition-type-0.0').selectOption('cost-budget');
    const dollars = page.getByTestId('condition-value-0.0');
    await dollars.fill('0.5');
    await dollars.press('Tab');
    await page.getByTestId('condition-type-0.1').selectOption('agent-token-budget');
    await page.getByTestId('condition-value-0.1').fill('8000');
    await page.getByTestId('condition-value-0.1').press('Tab');
    await page.getByTestId('condition-agents-0.1').fill('critic');
    await page.getByTestId('condition-agents-0.1').press('Tab');
    await expect
      .poll(async () => (await page.getByTestId('termination-summary').textContent())?.trim())
      .toBe('Stops at ($0.5 spent OR 8000 tokens by one of critic).');
    // No problem is listed for either condition.
    await expect
      .poll(() => page.locator('[data-testid="issue-list"] [data-testid="issue-error"]').count())
      .toBe(0);
    await page.getByTestId('termination-editor').scrollIntoViewIfNeeded();
    // Every condition's controls stay inside the side panel (a fieldset used to grow past it and
    // hide the remove buttons off its right edge).
    const editor = await page.getByTestId('termination-editor').boundingBox();
    const controls = page.locator(
      '[data-testid^="condition-remove-"], [data-testid^="condition-type-"], [data-testid^="condition-value-"]',
    );
    expect(await controls.count()).toBeGreaterThanOrEqual(7);
    for (const box of await controls.evaluateAll((elements) =>
      elements.map((element) => element.getBoundingClientRect().right),
    ))
      expect(box).toBeLessThanOrEqual(editor!.x + editor!.width + 0.5);
    for (const scheme of ['light', 'dark'] as const) {
      await useTheme(page, scheme);
      await shot(page, `cost-builder-budgets-1280-${scheme}.png`);
    }
    await useTheme(page, 'light');
  });
});
