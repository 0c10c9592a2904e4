import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '@shared/domain';
import { startOpenAiStub, type OpenAiStub } from '../helpers/openai-stub';
import { runToEnd, serveForSuite, shot, SHOT_SIZES } from './session-helpers';
import { openSession, showLens } from './lanes-helpers';

const TOKEN = 'e2e-graph-edge-costs-token-0123456789abcdef0';

/**
 * The edge labels as drawn: those whose box meets an agent's card (hidden ones aside), how many
 * show their cost line, and the edges whose label folded its cost away or is hidden for room.
 */
function readLabels(page: Page) {
  return page.evaluate(() => {
    const cards = Array.from(document.querySelectorAll('[data-testid="agent-node"]')).map((card) =>
      card.getBoundingClientRect(),
    );
    const meet = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const labels = Array.from(document.querySelectorAll<HTMLElement>('[data-testid="edge-label"]'));
    const shown = labels.filter((label) => getComputedStyle(label).visibility !== 'hidden');
    const edges = (list: HTMLElement[]) => list.map((label) => label.dataset.edge ?? '');
    return {
      labels: labels.length,
      overCards: edges(
        shown.filter((label) => cards.some((card) => meet(label.getBoundingClientRect(), card))),
      ),
      costsShown: shown.filter((label) => {
        const cost = label.querySelector('[data-testid="edge-cost"]');
        return cost !== null && cost.getBoundingClientRect().height > 0;
      }).length,
      folded: edges(shown.filter((label) => label.classList.contains('cost-folded'))),
      hidden: edges(labels.filter((label) => !shown.includes(label))),
    };
  });
}

/** Puts the pointer on the middle of an edge's stroke. */
async function hoverEdge(page: Page, id: string): Promise<void> {
  const point = await page.evaluate((edge) => {
    const path = document.querySelector<SVGPathElement>(
      `.vue-flow__edge[data-id="${edge}"] path.vue-flow__edge-interaction`,
    )!;
    const at = path.getPointAtLength(path.getTotalLength() / 2);
    const m = path.getScreenCTM()!;
    return { x: at.x * m.a + at.y * m.c + m.e, y: at.x * m.b + at.y * m.d + m.f };
  }, id);
  await page.mouse.move(point.x, point.y);
}

/**
 * The graph's Cost toggle on a six-agent ring drawn in a small window, where the cards sit close:
 * a label keeps off every card, sliding along its edge, or folding its cost line away (shown when
 * the pointer is on it) when only the count fits.
 */
describe('edge cost labels keep off the cards (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1024, height: 700 } });
  let stub: OpenAiStub;

  beforeAll(async () => {
    stub = await startOpenAiStub();
    stub.respondWith(() => ({
      type: 'text',
      content: 'Noted, passing it on.',
      usage: { prompt: 900, completion: 80 },
    }));
  });
  afterAll(() => stub.close());

  it('places every label off the cards at 1024x700 and 1920x1080', { timeout: 180_000 }, async () => {
    const { page, host } = app;
    const provider = { id: 'custom', baseUrl: stub.baseUrl, model: 'gpt-4o-mini' };
    const names = ['planner', 'coder', 'critic', 'tester'];
    const fleet: FleetInput = {
      version: 1,
      name: 'Priced ring',
      agents: names.map((name) => ({
        name,
        type: 'llm' as const,
        systemPrompt: `You are the ${name}.`,
        provider,
      })),
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 9 },
    };
    const { sessionId, status } = await runToEnd(host.port, TOKEN, fleet, 'Ship the importer', 60_000);
    expect(status).toBe('completed');
    await openSession(page, sessionId);
    await showLens(page, 'graph');
    await page.getByTestId('edge-label').first().waitFor();
    const toggle = page.getByTestId('toggle-edge-costs');
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    await expect.poll(() => page.getByTestId('edge-cost').count()).toBeGreaterThan(0);
    // The coder's card dragged close under the planner's, and the critic's close beside the coder's.
    const card = (name: string) => page.locator(`[data-testid="agent-node"][data-agent="${name}"]`);
    const moveNear = async (name: string, anchor: string, dx: number, dy: number) => {
      const from = (await card(name).boundingBox())!;
      const to = (await card(anchor).boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + 12);
      await page.mouse.down();
      await page.mouse.move(to.x + to.width / 2 + dx, to.y + 12 + dy, { steps: 12 });
      await page.mouse.up();
    };
    const planner = (await card('planner').boundingBox())!;
    await moveNear('coder', 'planner', 0, planner.height + 34);
    const coder = (await card('coder').boundingBox())!;
    await moveNear('critic', 'coder', coder.width + 40, 0);

    for (const size of SHOT_SIZES) {
      await page.setViewportSize(size);
      await page.getByTestId('fit-view').click();
      // Fitting animates for 200 ms.
      await page.waitForTimeout(400);
      await expect.poll(async () => (await readLabels(page)).overCards, { timeout: 10_000 }).toEqual([]);
      const drawn = await readLabels(page);
      expect(drawn.labels).toBeGreaterThanOrEqual(names.length);
      // Every label shows its cost, or has folded it away or hidden itself for lack of room.
      expect(drawn.costsShown + drawn.folded.length + drawn.hidden.length).toBe(drawn.labels);
      await shot(page, `graph-edge-costs-${size.name}.png`);
      // With the pointer on its edge (or on it), a folded or hidden label shows whole, cost and all.
      for (const edge of [drawn.folded[0], drawn.hidden[0]]) {
        if (!edge) continue;
        const label = page.locator(`[data-testid="edge-label"][data-edge="${edge}"]`);
        await hoverEdge(page, edge);
        await expect.poll(() => label.getByTestId('edge-cost').isVisible()).toBe(true);
        // It stays while the pointer rests (shown under the pointer, it must not flicker away).
        await page.waitForTimeout(300);
        expect(await label.getByTestId('edge-cost').isVisible()).toBe(true);
        expect(await label.getByTestId('edge-cost').textContent()).toMatch(/^\$0\.\d+$/);
        await shot(
          page,
          `graph-edge-costs-${size.name}-hover-${edge === drawn.hidden[0] ? 'hidden' : 'folded'}.png`,
        );
        await page.mouse.move(2, 2);
      }
    }
  });
});
