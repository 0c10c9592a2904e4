import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import {
  callHost,
  runToEnd,
  shot,
  serveInChromium,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';
import {
  GRAPH_SIZES,
  cardRects,
  measureGraph,
  nestedTeamFleet,
  openGraph,
  settle,
  type GraphMeasure,
} from './graph-measure';

const TOKEN = 'e2e-graph-live-token-0123456789abcdef0123';

/** A round robin whose replies stream for about a second each, so the run can be watched live. */
function slowDebate(): FleetInput {
  const reply = (text: string) => ({ content: text.repeat(12), chunkSize: 6, delayMs: 25 });
  return {
    version: 1,
    name: 'Slow debate',
    agents: ['pro', 'con', 'chair'].map((name) => ({
      name,
      type: 'scripted' as const,
      role: `${name} of the debate`,
      script: [reply(`${name} speaks. `)],
      loop: true,
    })),
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 7 },
  };
}

/** A fleet of `count` agents in the given pattern, for the many-agents layout. */
function many(count: number, pattern: 'round-robin' | 'parallel'): FleetInput {
  const names = Array.from({ length: count }, (_, index) => `agent${String(index).padStart(2, '0')}`);
  return {
    version: 1,
    name: `${count} agents, ${pattern}`,
    agents: names.map((name) => ({
      name,
      type: 'scripted' as const,
      script: [{ content: `${name} done.` }],
    })),
    team:
      pattern === 'parallel'
        ? { pattern, workers: names.slice(0, count - 1), aggregator: names[count - 1]! }
        : { pattern },
    termination: { type: 'max-messages', max: count + 2 },
  };
}

/** Each node's position in flow coordinates (its translate), by id: what a layout change moves. */
function flowPositions(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('.vue-flow__node')))
      out[node.dataset.id ?? '?'] = node.style.transform;
    return out;
  });
}

function translate(transform: string | undefined): { x: number; y: number } {
  const match = /translate\(([-\d.]+)px, ([-\d.]+)px\)/.exec(transform ?? '');
  if (!match) throw new Error(`no translate in ${transform}`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

/** Records, in the page, every pulse (node ring, edge dot, broadcast ray) that appears from now on. */
function watchPulses(page: Page): Promise<void> {
  return page.evaluate(() => {
    const seen = { rings: 0, dots: 0, broadcasts: 0 };
    (window as unknown as { graphPulses: typeof seen }).graphPulses = seen;
    new MutationObserver((records) => {
      for (const record of records)
        for (const added of Array.from(record.addedNodes)) {
          if (!(added instanceof Element)) continue;
          // A pulse is added on its own, or inside a node or edge that appears with it.
          const has = (selector: string) => added.matches(selector) || added.querySelector(selector) !== null;
          if (has('.pulse-ring')) seen.rings += 1;
          if (has('.pulse-dot')) seen.dots += 1;
          if (has('[data-testid="broadcast-pulse"]')) seen.broadcasts += 1;
        }
    }).observe(document.body, { subtree: true, childList: true });
  });
}
const pulses = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { graphPulses: { rings: number; dots: number; broadcasts: number } }).graphPulses,
  );

describe('the session graph while a run is live, in replay and when rearranged', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  let debateId = '';

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      initScript: 'window.__name = (fn) => fn;',
      pageErrors,
      viewport: { width: 1440, height: 900 },
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('keeps every node where it is while messages arrive, highlights the speaker and pulses each message', async () => {
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: slowDebate() },
      task: 'Should meetings be shorter?',
    });
    debateId = sessionId;
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor();
    await watchPulses(page);
    const first = await flowPositions(page);
    expect(Object.keys(first).sort()).toEqual(['chair', 'con', 'pro']);
    const speakers = new Set<string>();
    const layouts = new Set<string>();
    for (let round = 0; round < 60; round += 1) {
      const status = await page.getByTestId('session-status').getAttribute('data-status');
      const speaking = await page
        .locator('[data-testid="agent-node"][data-speaking="true"][data-status="streaming"]')
        .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.agent ?? ''));
      for (const name of speaking) speakers.add(name);
      layouts.add(JSON.stringify(await flowPositions(page)));
      if (round === 10) await shot(page, 'graph-live-streaming.png');
      if (status === 'completed') break;
      await page.waitForTimeout(150);
    }
    expect(await page.getByTestId('session-status').getAttribute('data-status')).toBe('completed');
    // Nothing moved while the run was live; each agent was highlighted while it spoke.
    expect([...layouts]).toEqual([JSON.stringify(first)]);
    expect([...speakers].sort()).toEqual(['chair', 'con', 'pro']);
    const seen = await pulses(page);
    expect(seen.rings).toBeGreaterThan(0);
    expect(seen.dots).toBeGreaterThan(0);
    expect(seen.broadcasts).toBeGreaterThan(0);
    // The ring of turns: pro -> con -> chair -> pro, each edge labelled with its count.
    const labels = await page
      .getByTestId('edge-label')
      .evaluateAll((nodes) =>
        nodes.map((node) => `${(node as HTMLElement).dataset.edge}=${node.textContent?.trim()}`),
      );
    // Six replies: pro, con, chair, pro, con, chair (chair hands back to pro once).
    expect(labels.sort()).toEqual(['message:chair->pro=1', 'message:con->chair=2', 'message:pro->con=2']);
    await shot(page, 'graph-live-completed.png');
  });

  it('pulses replayed messages and keeps the layout when stepping back and forth', async () => {
    await openGraph(page, debateId);
    const before = await flowPositions(page);
    const position = async () => Number(await page.getByTestId('replay-position').getAttribute('data-seq'));
    await page.getByTestId('replay-home').click();
    await expect.poll(position).toBe(0);
    await settle(page);
    await watchPulses(page);
    for (let step = 0; step < 3; step += 1) await page.getByTestId('replay-next').click();
    expect(await position()).toBeGreaterThan(0);
    await expect.poll(async () => (await pulses(page)).broadcasts).toBeGreaterThan(0);
    await expect.poll(async () => (await pulses(page)).dots).toBeGreaterThan(0);
    await page.getByTestId('replay-prev').click();
    await page.getByTestId('replay-end').click();
    await settle(page);
    expect(await flowPositions(page)).toEqual(before);
  });

  it('remembers a node dragged elsewhere, and Auto layout puts it back', async () => {
    await openGraph(page, debateId);
    // Where Auto layout puts the nodes in this pane (the split is the pane's shape it lays out for).
    await page.getByTestId('relayout').click();
    await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor();
    await settle(page);
    const before = await flowPositions(page);
    const box = await page.locator('.vue-flow__node[data-id="con"]').boundingBox();
    if (!box) throw new Error('no node');
    await page.mouse.move(box.x + 30, box.y + 12);
    await page.mouse.down();
    await page.mouse.move(box.x + 90, box.y + 80, { steps: 8 });
    await page.mouse.up();
    const dragged = translate((await flowPositions(page)).con);
    expect(Math.abs(dragged.x - translate(before.con).x)).toBeGreaterThan(20);
    await openGraph(page, debateId);
    const reopened = translate((await flowPositions(page)).con);
    // Saved positions are whole pixels.
    expect(Math.abs(reopened.x - dragged.x)).toBeLessThan(1);
    expect(Math.abs(reopened.y - dragged.y)).toBeLessThan(1);
    await page.getByTestId('relayout').click();
    await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor();
    await settle(page);
    const back = translate((await flowPositions(page)).con);
    expect(Math.abs(back.x - translate(before.con).x)).toBeLessThan(4);
    expect(Math.abs(back.y - translate(before.con).y)).toBeLessThan(4);
  });

  it('grows with the window: the same graph fills a bigger pane at a bigger zoom', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await openGraph(page, debateId);
    const small = await measureGraph(page);
    await page.setViewportSize({ width: 1920, height: 1080 });
    await expect.poll(async () => (await measureGraph(page)).zoom).toBeGreaterThan(small.zoom * 1.3);
    await settle(page);
    const large = await measureGraph(page);
    expect(large.fill).toBeGreaterThan(0.7);
    expect(large.minimapShown).toBe(true);
    expect(small.minimapShown).toBe(false);
    expect([...large.overlaps, ...large.outside, ...large.covered, ...large.clipped]).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('comes back laid out and fitted after a switch to the lanes', async () => {
    await openGraph(page, debateId);
    const before = await flowPositions(page);
    await page.getByTestId('lens-lanes').click();
    await page.getByTestId('agent-graph').waitFor({ state: 'detached' });
    await page.getByTestId('lens-graph').click();
    await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor();
    await settle(page);
    expect(await flowPositions(page)).toEqual(before);
    const measure = await measureGraph(page);
    expect([...measure.overlaps, ...measure.outside, ...measure.covered, ...measure.clipped]).toEqual([]);
  });

  for (const [index, size] of GRAPH_SIZES.entries()) {
    const theme = index % 2 === 0 ? 'light' : 'dark';
    it(`at ${size.name} in ${theme}: a nested team's live run is laid out as when completed, and no card moves as agents start`, async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme: theme });
      // Every step streams for about two seconds: the run is watched while agent after agent starts.
      const fleet = nestedTeamFleet(`Live nested ${size.name}`, (name) => ({
        content: `${name} takes its turn and passes the work on. `.repeat(2),
        chunkSize: 3,
        delayMs: 60,
      }));
      const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
        source: { fleet },
        task: 'Pass the work round',
      });
      await openGraph(page, sessionId);
      const status = () => page.getByTestId('session-status').getAttribute('data-status');
      const first = await cardRects(page);
      const laidOut = await flowPositions(page);
      let live: GraphMeasure | null = null;
      const speakers = new Set<string>();
      const moved = new Set<string>();
      for (let round = 0; round < 400 && (await status()) !== 'completed'; round += 1) {
        const speaking = await page
          .locator('[data-testid="agent-node"][data-speaking="true"]')
          .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.agent ?? ''));
        for (const name of speaking) speakers.add(name);
        const now = await cardRects(page);
        // Rects read after the run ended (the panes round the graph change then, and the fit may
        // follow) are not of the live run: only those with the run still going count.
        const running = (await status()) === 'running';
        for (const [id, rect] of running ? Object.entries(now) : []) {
          const was = first[id];
          if (!was || Math.max(Math.abs(rect.x - was.x), Math.abs(rect.y - was.y)) > 3) moved.add(id);
        }
        // Mid-way: a member of the team has spoken; measure (and show) the live layout once.
        if (!live && speaking.some((name) => name.startsWith('research/'))) {
          live = await measureGraph(page);
          if ((await status()) !== 'running') live = null;
          else await shot(page, `graph-live-nested-${size.name}-${theme}.png`);
        }
        await page.waitForTimeout(100);
      }
      expect(await status()).toBe('completed');
      // Once the run ends the panes round the graph change: the fit may follow, the layout stays.
      await settle(page);
      expect(await flowPositions(page)).toEqual(laidOut);
      if (!live) throw new Error('the run ended before a member of the team was seen speaking');
      // Agents started one after another while watched, and no card moved on screen meanwhile.
      expect(speakers.size).toBeGreaterThanOrEqual(3);
      expect([...moved]).toEqual([]);
      expect(Object.keys(first).sort()).toEqual([
        'lead',
        'research',
        'research/checker',
        'research/reader',
        'research/summarizer',
        'writer',
      ]);
      expect([...live.overlaps, ...live.outside, ...live.covered, ...live.clipped]).toEqual([]);
      // Cards, not holes: the stages sit next to the team's group, which fills the pane.
      expect(live.coverage).toBeGreaterThan(0.45);
      expect(live.fill).toBeGreaterThan(0.7);
      // Completed, the same session is drawn no bigger than it was while live.
      await openGraph(page, sessionId);
      const done = await measureGraph(page);
      await shot(page, `graph-live-nested-completed-${size.name}-${theme}.png`);
      expect(live.zoom).toBeGreaterThanOrEqual(done.zoom * 0.95);
      console.log(
        `${size.name}: live zoom ${live.zoom.toFixed(2)} coverage ${live.coverage.toFixed(2)} fill ${live.fill.toFixed(2)}; completed zoom ${done.zoom.toFixed(2)}`,
      );
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.emulateMedia({ colorScheme: 'light' });
    });
  }

  it('lays out 50 agents without overlaps or clipped labels, fitted into the pane', async () => {
    for (const pattern of ['round-robin', 'parallel'] as const) {
      const { sessionId } = await runToEnd(host.port, TOKEN, many(50, pattern), 'Everyone report', 30_000);
      await openGraph(page, sessionId);
      const measure = await measureGraph(page);
      await shot(page, `graph-50-agents-${pattern}-1440x900.png`);
      expect(measure.nodes).toBe(50);
      expect([...measure.overlaps, ...measure.outside, ...measure.covered, ...measure.clipped]).toEqual([]);
    }
    expect(pageErrors).toEqual([]);
  });
});
