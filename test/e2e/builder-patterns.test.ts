import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { dragMouse, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

const SWARM = 'example:scripted/support-swarm';

describe('team patterns, examples and files in the builder', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const edges = (kind: string) => page.locator(`.vue-flow__edge.edge-${kind}`).count();
  /**
   * Where the canvas framing stands: whether the nodes' bounding box is centred in the canvas
   * (as fitView leaves it) and whether it held still across two animation frames.
   */
  const framing = () =>
    page.evaluate(async () => {
      const canvas = document.querySelector('[data-testid="builder-canvas"] .vue-flow');
      const bounds = () => {
        const rects = Array.from(
          document.querySelectorAll('[data-testid="builder-canvas"] .vue-flow__node'),
          (node) => node.getBoundingClientRect(),
        );
        const left = Math.min(...rects.map((rect) => rect.left));
        const right = Math.max(...rects.map((rect) => rect.right));
        const top = Math.min(...rects.map((rect) => rect.top));
        const bottom = Math.max(...rects.map((rect) => rect.bottom));
        return { x: (left + right) / 2, y: (top + bottom) / 2, width: right - left, height: bottom - top };
      };
      const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
      const before = bounds();
      await frame();
      await frame();
      const after = bounds();
      const view = canvas?.getBoundingClientRect();
      const near = (a: number, b: number) => Math.abs(a - b) < 2;
      return {
        centred:
          !!view && near(after.x, view.left + view.width / 2) && near(after.y, view.top + view.height / 2),
        still: (['x', 'y', 'width', 'height'] as const).every((key) => near(before[key], after[key])),
      };
    });

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: 'e2e-patterns-token-0123456789abcdef0123',
      pageErrors,
      open: false,
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('shows an example read-only, with its handoffs drawn, and runs it as it is', async () => {
    await page.goto(host.url);
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId(`fleet-open-${SWARM}`).click();
    await page.getByTestId('agent-node-triage').waitFor();
    await expect(page.getByTestId('save-state').getAttribute('data-state')).resolves.toBe('read-only');
    expect(await edges('handoff')).toBe(6);
    await expect(page.getByTestId('template-planner').isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'builder-example-swarm.png') });
    await page.getByTestId('builder-run').click();
    await page.getByTestId('run-task').fill('My invoice is wrong.');
    await page.getByTestId('run-start').click();
    await expect.poll(() => page.url()).toMatch(/#\/sessions\/[^/]+$/);
  });

  it('duplicates the example to edit it; drawing an edge in a swarm creates a handoff', async () => {
    await page.goBack();
    await page.getByTestId('agent-node-triage').waitFor();
    await page.getByTestId('builder-duplicate').click();
    await expect.poll(() => page.getByTestId('save-state').getAttribute('data-state')).toBe('saved');
    expect(page.url()).not.toContain('example');
    await page.getByTestId('template-coder').dblclick();
    await page.getByTestId('agent-node-coder').waitFor();
    const before = await edges('handoff');
    await dragMouse(
      page,
      page.getByTestId('agent-node-tech').locator('.vue-flow__handle.source'),
      page.getByTestId('agent-node-coder').locator('.vue-flow__handle.target'),
    );
    await expect.poll(() => edges('handoff')).toBe(before + 1);
  });

  it('draws fan-out and fan-in for parallel', async () => {
    await page
      .getByTestId('builder-canvas')
      .locator('.vue-flow__pane')
      .click({ position: { x: 30, y: 30 } });
    await page.getByTestId('pattern-select').selectOption('parallel');
    await expect.poll(() => edges('fan-out')).toBe(3);
    expect(await edges('fan-in')).toBe(3);
    await expect(page.getByTestId('agent-node-coder').textContent()).resolves.toContain('aggregator');
    const before = await page.getByTestId('agent-node-coder').boundingBox();
    await page.getByTestId('auto-layout').click();
    await expect
      .poll(async () => (await page.getByTestId('agent-node-coder').boundingBox())?.x)
      .not.toBe(before?.x);
    // Auto-layout reframes the canvas with a short animation; screenshot once it has settled.
    await expect.poll(framing, { timeout: 10_000 }).toEqual({ centred: true, still: true });
    await page.screenshot({ path: join(ARTIFACTS, 'builder-parallel.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.screenshot({ path: join(ARTIFACTS, 'builder-parallel-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows routing rules on the edges of a selector and edits them', async () => {
    await page.getByTestId('pattern-select').selectOption('selector');
    await expect.poll(() => edges('fallback')).toBe(1);
    await dragMouse(
      page,
      page.getByTestId('task-node').locator('.vue-flow__handle.source'),
      page.getByTestId('agent-node-billing').locator('.vue-flow__handle.target'),
    );
    await expect.poll(() => edges('route')).toBe(1);
    // The fallback edge leaves the same handle and overlaps this one; click the route's own element.
    await page.locator('.vue-flow__edge.edge-route').dispatchEvent('click');
    await page.getByTestId('rule-contains').fill('refund');
    await expect.poll(() => page.locator('.vue-flow__edge.edge-route').textContent()).toContain('refund');
    await page.screenshot({ path: join(ARTIFACTS, 'builder-selector.png') });
  });

  it('imports a fleet file dropped on the page and explains a broken one', async () => {
    await page.getByTestId('builder-back').click();
    await page.getByTestId('fleets-page').waitFor();
    const drop = async (name: string, text: string) => {
      const dataTransfer = await page.evaluateHandle(
        ([fileName, content]) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([content!], fileName!, { type: 'application/json' }));
          return transfer;
        },
        [name, text],
      );
      await page.dispatchEvent('[data-testid="fleets-page"]', 'drop', { dataTransfer });
    };
    await drop('broken.json', '{"version": 1, "name": "x", "agents": []}');
    await expect.poll(() => page.getByTestId('fleet-error').textContent()).toContain('not a valid fleet');
    const fleet = {
      version: 1,
      name: 'Dropped pair',
      agents: [
        { name: 'ping', type: 'scripted', script: [{ content: 'ping' }] },
        { name: 'pong', type: 'scripted', script: [{ content: 'pong' }] },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 4 },
    };
    await drop('pair.fleet.json', JSON.stringify(fleet));
    await expect.poll(() => page.getByTestId('fleet-notice').textContent()).toContain('Dropped pair');
  });

  it('deletes a fleet only after confirming', async () => {
    const row = page.locator('[data-testid^="fleet-row-"]').filter({ hasText: 'Dropped pair' });
    const id = (await row.getAttribute('data-testid'))!.replace('fleet-row-', '');
    await page.getByTestId(`fleet-delete-${id}`).click();
    await page.getByTestId('delete-confirm').waitFor();
    await page.getByTestId('delete-confirm-yes').click();
    await expect.poll(() => row.count()).toBe(0);
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
