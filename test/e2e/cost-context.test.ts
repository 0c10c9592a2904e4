import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '@shared/domain';
import { startOpenAiStub, type OpenAiStub } from '../helpers/openai-stub';
import { callHost, runToEnd, serveForSuite, shot } from './session-helpers';
import { openSession, showLens } from './lanes-helpers';

const TOKEN = 'e2e-cost-context-token-0123456789abcdef0123456';

async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

/**
 * A run against the stub model server, as a new user would try it: each agent's cost and tokens on
 * the graph, the header's cost, a message's context opened from the transcript and with C, and the
 * sessions list sorted by tokens.
 */
describe('cost, tokens and context in the session view (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1920, height: 1080 } });
  let stub: OpenAiStub;
  let sessionId = '';

  beforeAll(async () => {
    stub = await startOpenAiStub();
    stub.respondWith((request) => {
      const sent = request.body?.messages?.length ?? 0;
      return {
        type: 'text',
        content: `Reply ${sent}: a few sentences about the plan, the risks and what to check next.`,
        usage: { prompt: 200 + sent * 40, completion: 60 },
      };
    });
  });
  afterAll(() => stub.close());

  it('shows cost and tokens per agent on the graph and in the header', { timeout: 180_000 }, async () => {
    const { page, host } = app;
    const provider = { id: 'custom', baseUrl: stub.baseUrl, model: 'gpt-4o-mini' };
    const fleet: FleetInput = {
      version: 1,
      name: 'Priced pair',
      agents: [
        { name: 'planner', type: 'llm', systemPrompt: 'You plan work in short steps.', provider },
        { name: 'critic', type: 'llm', systemPrompt: 'You point out what the plan misses.', provider },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 7 },
    };
    let status: string;
    ({ sessionId, status } = await runToEnd(
      host.port,
      TOKEN,
      fleet,
      'Plan the release of version 2',
      60_000,
    ));
    expect(status).toBe('completed');
    await openSession(page, sessionId);
    await showLens(page, 'graph');
    const planner = page.locator('[data-testid="agent-node"][data-agent="planner"]');
    await expect
      .poll(() => planner.getByTestId('agent-cost').textContent(), { timeout: 10_000 })
      .toMatch(/^\$0\.\d+/);
    expect(await planner.getByTestId('agent-tokens').textContent()).toMatch(/^\d[\d.k]* tok$/);
    expect(await planner.getByTestId('agent-busy').textContent()).toMatch(/ms|s/);
    expect(await page.getByTestId('session-cost').locator('dd').textContent()).toMatch(/^\$0\.\d+$/);
    // An edge says on hover what the turns it triggered cost.
    const costs = await page
      .getByTestId('edge-label')
      .evaluateAll((labels) => labels.map((label) => (label as HTMLElement).dataset.cost ?? ''));
    expect(costs.some((cost) => /model calls answering .*: \$0\.\d+/.test(cost))).toBe(true);
    const chip = page.getByTestId('usage-chip').first();
    expect(await chip.textContent()).toMatch(/tok · \$/);
    expect(await chip.getAttribute('title')).toContain('gpt-4o-mini');
  });

  it('opens the context of a message from the transcript and with C', { timeout: 120_000 }, async () => {
    const { page } = app;
    const last = page.locator('[data-testid="message"][data-from="planner"]').last();
    await last.hover();
    await last.getByTestId('context-here').click();
    const inspector = page.getByTestId('context-inspector');
    await inspector.waitFor();
    await expect
      .poll(() => inspector.getByTestId('context-group').count(), { timeout: 10_000 })
      .toBeGreaterThan(3);
    expect(await inspector.locator('h2').textContent()).toBe("Context of planner's call");
    expect(await inspector.getByTestId('context-used').textContent()).toMatch(/of 128k tokens/);
    expect(await inspector.getByTestId('context-reported').textContent()).toMatch(/The provider reported/);
    const kinds = await inspector
      .getByTestId('context-group')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.kind));
    expect(kinds.slice(0, 2)).toEqual(['system', 'task']);
    expect(kinds).toContain('own');
    expect(kinds).toContain('message');

    for (const [width, height] of [
      [1024, 700],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        // The dialog fits the window and its table is not cut.
        const box = (await inspector.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(box.height).toBeLessThanOrEqual(height);
        await shot(page, `cost-context-inspector-${width}-${scheme}.png`);
      }
    }
    await page.keyboard.press('Escape');
    await inspector.waitFor({ state: 'detached' });
    for (const [width, height] of [
      [1024, 700],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await shot(page, `cost-session-view-${width}-${scheme}.png`);
      }
    }
    await useTheme(page, 'light');

    // C on a picked message opens its context.
    await page.locator('[data-testid="message"][data-from="critic"]').first().click();
    await page.mouse.move(2, 2);
    await page.keyboard.press('c');
    await inspector.waitFor();
    await expect
      .poll(() => inspector.locator('h2').textContent(), { timeout: 10_000 })
      .toBe("Context of critic's call");
    await page.keyboard.press('Escape');
    await inspector.waitFor({ state: 'detached' });
  });

  it('sorts the sessions list by tokens', { timeout: 60_000 }, async () => {
    const { page, host } = app;
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-sort').waitFor();
    await page.getByTestId('sort-tokens').click();
    const { items } = await callHost<{ items: Array<{ id: string; tokens: number }> }>(
      host.port,
      TOKEN,
      'sessions.list',
      {
        sort: 'tokens',
        limit: 25,
      },
    );
    expect(items[0]!.tokens).toBeGreaterThanOrEqual(items.at(-1)!.tokens);
    await expect
      .poll(() =>
        page
          .getByTestId('session-row')
          .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.sessionId)),
      )
      .toEqual(expect.arrayContaining([items[0]!.id]));
    const first = await page.getByTestId('session-row').first().getAttribute('data-session-id');
    expect(first).toBe(items[0]!.id);
    expect(await page.getByTestId('sort-tokens').getAttribute('aria-pressed')).toBe('true');
    // The priced run's row says what it cost, as its header does.
    await expect
      .poll(() => page.getByTestId('session-row').first().getByTestId('row-cost').textContent())
      .toMatch(/^\$\d/);
    for (const scheme of ['light', 'dark'] as const) {
      await useTheme(page, scheme);
      await shot(page, `cost-sessions-sorted-1920-${scheme}.png`);
    }
    await useTheme(page, 'light');
  });
});
