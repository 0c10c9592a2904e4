import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetSummary, ForkResult, SessionListItem } from '@shared/contract';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import {
  callHost,
  openApp,
  serveInChromium,
  shootAll,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';

const TOKEN = 'e2e-compare-token-0123456789abcdef012345678';
const EDITED = 'Remote work wins outright: the studies agree and nobody misses the commute.';

describe('compare two branches side by side (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  let rootId = '';
  let forkId = '';

  const call = <T>(channel: string, payload: unknown) => callHost<T>(host.port, TOKEN, channel, payload);
  /** Waits (outside a test, so without expect.poll) until the session has completed. */
  async function finished(id: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { summary } = await call<{ summary: SessionListItem }>('sessions.get', { id });
      if (summary.status === 'completed') return;
      if (Date.now() > deadline) throw new Error(`${id} is still ${summary.status} after a minute`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      pageErrors,
      consoleErrors: true,
      open: false,
    }));
    const fleets = await call<FleetSummary[]>('fleets.list', {});
    const debate = fleets.find((fleet) => fleet.name === 'Debate' && fleet.example && fleet.scripted);
    expect(debate).toBeDefined();
    ({ sessionId: rootId } = await call<{ sessionId: string }>('runs.start', {
      source: { example: debate!.id },
      task: 'Does remote work make teams more productive?',
      title: 'Debate, as it ran',
    }));
    await finished(rootId);
    ({ sessionId: forkId } = await call<ForkResult>('branches.fork', {
      sessionId: rootId,
      atMessage: 3,
      text: EDITED,
      title: 'Debate, bolder skeptic',
    }));
    await finished(forkId);
    await openApp(page, host.url);
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('picks two sessions on the list and opens them side by side from their common prefix', async () => {
    const group = page.locator(`[data-testid="session-family"][data-root-id="${rootId}"]`);
    await group.waitFor();
    await group.getByTestId('compare-pick').check();
    await group.getByTestId('family-toggle').click();
    await group
      .locator(`[data-testid="family-node"][data-session-id="${forkId}"]`)
      .getByTestId('family-pick')
      .check();
    await page.getByTestId('compare-start').click();
    const view = page.getByTestId('compare-view');
    await view.waitFor();
    expect(new URL(page.url()).hash).toBe(`#/compare/${rootId}/${forkId}`);
    await expect
      .poll(() => page.getByTestId('compare-relation').textContent())
      .toBe('B is a fork of A at message 3. Messages 1–2 are the same; they part at message 3.');
    await page.getByTestId('compare-diverge').waitFor();
    const third = page.locator('[data-testid="compare-pair"][data-position="3"]');
    expect(await third.getAttribute('data-state')).toBe('differs');
    // The edited words are marked on B's side, the words they replaced on A's.
    await expect.poll(() => third.locator('mark.b').count()).toBeGreaterThan(0);
    expect(await third.locator('.cell.b').textContent()).toContain(EDITED);
    const first = page.locator('[data-testid="compare-pair"][data-position="1"]');
    expect(await first.getAttribute('data-state')).toBe('same');
    await shootAll(page, 'compare-transcripts', async (width) => {
      if (width < 1400) await page.getByTestId('compare-tab-transcript').click();
    });
  });

  it('shows per-agent figures, stop reasons and both graphs with the differing edges highlighted', async () => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const figures = page.getByTestId('compare-figures');
    await figures.waitFor();
    const agents = await page
      .getByTestId('compare-agent')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.agent));
    expect(agents).toEqual(expect.arrayContaining(['optimist', 'skeptic', 'moderator']));
    expect(await page.getByTestId('compare-stop').count()).toBe(2);
    // Each side is the session view's graph: the debate only broadcasts, and each turn taken
    // after a broadcast is an edge from the broadcaster, as in the session view (no hub).
    for (const side of ['a', 'b'] as const) {
      const graph = page.getByTestId(`compare-graph-${side}`);
      await expect
        .poll(() => graph.locator('[data-testid="agent-graph"]').getAttribute('data-phase'))
        .toBe('ready');
      expect(await graph.getByTestId('agent-node').count()).toBe(3);
      expect(await graph.locator('.vue-flow__edge').count()).toBeGreaterThanOrEqual(2);
    }
    // On a narrow window the figures and graphs are a tab away.
    await page.setViewportSize({ width: 1024, height: 700 });
    expect(await figures.isVisible()).toBe(false);
    await page.getByTestId('compare-tab-overview').click();
    expect(await figures.isVisible()).toBe(true);
    await shootAll(page, 'compare-figures', async (width) => {
      if (width < 1400) await page.getByTestId('compare-tab-overview').click();
    });
    await page.getByTestId('compare-tab-transcript').click();
  });

  it('exports the comparison as Markdown and as a self-contained HTML file (downloads)', async () => {
    for (const format of ['md', 'html'] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId(`compare-export-${format}`).click(),
      ]);
      const path = join(temp.dir, `compare.${format}`);
      await download.saveAs(path);
      const text = readFileSync(path, 'utf8');
      expect(text).toContain('Debate, as it ran');
      expect(text).toContain('Debate, bolder skeptic');
      if (format === 'html') {
        expect(text.toLowerCase()).toMatch(/^<!doctype html>/);
        expect(text).not.toMatch(/<script\b/i);
        expect(text).not.toMatch(/<link\b[^>]*href="https?:/i);
      }
    }
  });

  it('compares with another session from the session view', async () => {
    await page.goto(`${new URL(host.url).origin}/#/sessions/${forkId}`);
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('compare-with').click();
    const picker = page.getByTestId('compare-picker');
    await picker.waitFor();
    await picker.locator(`[data-testid="compare-candidate"][data-session-id="${rootId}"]`).first().click();
    await page.getByTestId('compare-view').waitFor();
    // Opened from the fork, the parent is still shown on the left, and the address says so.
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/compare/${rootId}/${forkId}`);
    await expect
      .poll(() => page.getByTestId('compare-relation').textContent())
      .toMatch(/^B is a fork of A at message 3/);
    expect(await page.getByTestId('compare-view').getAttribute('data-a')).toBe(rootId);
    // Swap is off for a fork and its parent, and says why.
    const swap = page.getByTestId('compare-swap');
    expect(await swap.isDisabled()).toBe(true);
    expect(await page.getByTestId('compare-swap-hint').getAttribute('title')).toMatch(/right of its parent/);
    await page.keyboard.press('s');
    expect(new URL(page.url()).hash).toBe(`#/compare/${rootId}/${forkId}`);
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
