import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serveForSuite, shot } from './session-helpers';

const SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;
const TEMPLATES = ['planner', 'coder', 'critic', 'researcher', 'writer'];

async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

/** What the canvas shows: its zoom, cards outside it, clipped card text, and loop edges through cards. */
function canvasState(page: Page) {
  return page.evaluate(() => {
    const canvas = document.querySelector('[data-testid="builder-canvas"]')!;
    const view = canvas.getBoundingClientRect();
    const transform =
      canvas.querySelector<HTMLElement>('.vue-flow__transformationpane')?.style.transform ?? '';
    const zoom = Number(/scale\(([\d.]+)\)/.exec(transform)?.[1] ?? 1);
    const cards = Array.from(canvas.querySelectorAll<HTMLElement>('.vue-flow__node'), (node) => ({
      id: node.dataset.id ?? '?',
      rect: node.getBoundingClientRect(),
      clipped: Array.from(node.querySelectorAll<HTMLElement>('*')).some(
        (child) =>
          child.scrollWidth > child.clientWidth + 1 && getComputedStyle(child).overflow !== 'visible',
      ),
    }));
    const outside = cards
      .filter(
        ({ rect }) =>
          rect.left < view.left - 1 ||
          rect.right > view.right + 1 ||
          rect.top < view.top - 1 ||
          rect.bottom > view.bottom + 1,
      )
      .map(({ id }) => id);
    const throughCards: string[] = [];
    for (const edge of Array.from(canvas.querySelectorAll<SVGGElement>('.vue-flow__edge'))) {
      // Edge ids read "source->target" (the builder's mapping).
      const [source = '', target = ''] = (edge.dataset.id ?? '').replace(/^[a-z-]+:/, '').split('->');
      const line = edge.querySelector<SVGPathElement>('path.vue-flow__edge-path');
      const matrix = line?.getScreenCTM();
      if (!line || !matrix || !edge.classList.contains('edge-loop')) continue;
      const length = line.getTotalLength();
      for (let step = 0; step <= 200; step += 1) {
        const local = line.getPointAtLength((length * step) / 200);
        const { x, y } = new DOMPoint(local.x, local.y).matrixTransform(matrix);
        const hit = cards.find(
          ({ id, rect }) =>
            id !== source &&
            id !== target &&
            x > rect.left &&
            x < rect.right &&
            y > rect.top &&
            y < rect.bottom,
        );
        if (hit) {
          throughCards.push(`${source}->${target} through ${hit.id}`);
          break;
        }
      }
    }
    const name = canvas.querySelector<HTMLElement>(
      '[data-testid^="agent-node-"] strong, [data-testid^="agent-node-"]',
    );
    const namePx = name ? parseFloat(getComputedStyle(name).fontSize) * zoom : 0;
    return {
      zoom,
      namePx,
      outside,
      throughCards,
      clipped: cards.filter((card) => card.clipped).map(({ id }) => id),
      loops: canvas.querySelectorAll('.vue-flow__edge.edge-loop').length,
      agents: canvas.querySelectorAll('[data-testid^="agent-node-"]').length,
    };
  });
}

/**
 * Templates added by double-click land where the user sees them; the round robin's "repeat" edge
 * runs clear of the cards; the Task card shows whole; Auto layout keeps text readable and its zoom
 * stays with its fleet; "New fleet" starts empty.
 */
describe('the builder canvas keeps what it draws in view (Chromium)', () => {
  const app = serveForSuite({ viewport: { width: 1024, height: 700 } });

  it('adds, lays out and starts fleets where the user can read them', { timeout: 120_000 }, async () => {
    const { page } = app;
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId('fleet-new').click();
    await page.getByTestId('builder-canvas').waitFor();
    for (const [index, template] of TEMPLATES.entries()) {
      await page.getByTestId(`template-${template}`).dblclick();
      await expect.poll(async () => (await canvasState(page)).agents).toBe(index + 1);
      // The view may glide to the new card (200 ms).
      await page.waitForTimeout(400);
      const added = await page.locator('.vue-flow__node.selected').getAttribute('data-id');
      const state = await canvasState(page);
      expect(state.outside, `after adding ${template}`).not.toContain(added);
      // The first agent is framed with the Task card.
      if (index === 0) expect(state.outside).toEqual([]);
    }
    await page.keyboard.press('Escape');
    await page
      .getByTestId('builder-canvas')
      .locator('.vue-flow__pane')
      .click({ position: { x: 8, y: 8 } });
    await page.getByTestId('pattern-select').selectOption('round-robin');
    await expect.poll(async () => (await canvasState(page)).loops).toBe(1);
    let state = await canvasState(page);
    await shot(page, 'builder-canvas-added-1024x700-light.png');
    expect(state.throughCards).toEqual([]);
    expect(state.clipped).toEqual([]);

    await page.getByTestId('auto-layout').click();
    await page.waitForTimeout(400);
    state = await canvasState(page);
    expect(state.zoom).toBeGreaterThanOrEqual(0.78);
    expect(state.namePx).toBeGreaterThanOrEqual(9);
    expect(state.throughCards).toEqual([]);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await page.getByTestId('auto-layout').click();
        await page.waitForTimeout(400);
        state = await canvasState(page);
        expect(state.zoom, `${size.name}`).toBeGreaterThanOrEqual(0.78);
        // Too wide to fit at a readable zoom, it is shown from its start: the Task card whole.
        expect(state.outside).not.toContain('__task');
        expect(state.throughCards).toEqual([]);
        expect(state.clipped).toEqual([]);
        await shot(page, `builder-canvas-auto-layout-${size.name}-${scheme}.png`);
      }
    }
    await useTheme(page, 'light');
    await page.setViewportSize({ width: 1024, height: 700 });
    // Zoomed out by hand, then a new fleet: it opens empty, at 100 %.
    await page.locator('.vue-flow__controls-zoomout').click();
    await page.locator('.vue-flow__controls-zoomout').click();
    await page.getByTestId('builder-back').click();
    await page.getByTestId('fleet-new').click();
    await page.getByTestId('canvas-hint').waitFor();
    state = await canvasState(page);
    expect(state.agents).toBe(0);
    expect(state.zoom).toBe(1);
    expect(state.outside).toEqual([]);
    expect(state.clipped).toEqual([]);
    await shot(page, 'builder-canvas-new-fleet-1024x700-light.png');
  });
});
