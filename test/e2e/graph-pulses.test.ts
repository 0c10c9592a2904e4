import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type HostProcess } from '../helpers/browser';
import type { FleetInput } from '../../src-shared/domain';
import { makeTempDir } from '../helpers/temp-dir';
import {
  callHost,
  openApp,
  runExample,
  serveInChromium,
  shot,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';
import {
  GRAPH_SIZES as SIZES,
  GRAPH_THEMES as THEMES,
  nestedTeamFleet,
  openGraph,
  selectorHubFleet,
} from './graph-measure';

const TOKEN = 'e2e-graph-pulses-token-0123456789abcdef0123';

/**
 * Four agents round a selector hub: a broadcast from one corner to the opposite one would cross
 * the hub in a straight line. Messages stream for about a second each, so the run is watched live.
 */
const HUB_FLEET = selectorHubFleet('Hub broadcasts', (name) => ({
  content: `${name} here: my part of the work is done, over to the next one.`,
  chunkSize: 4,
  delayMs: 80,
}));

/** A team of three inside the fleet, drawn as a group: its members' broadcasts stay inside it. */
const NESTED_FLEET = nestedTeamFleet('Nested broadcasts', (name) => ({
  content:
    name === 'lead'
      ? 'Find out why, all of you.'
      : name === 'writer'
        ? 'Here is the answer.'
        : `${name}: noted, and passed on to the others.`,
  chunkSize: 4,
  delayMs: 80,
}));

/** One pulse dot as seen in one animation frame. */
interface PulseSample {
  /** 'edge' (a message along its edge) or 'broadcast' (a ray to a receiver). */
  kind: 'edge' | 'broadcast';
  /** Distance in flow pixels from the dot's centre to the nearest point of its path (-1: no path). */
  offPath: number;
  /** How far along its path the dot is, 0 to 1. */
  along: number;
  /** Age in ms of the edge's SVG when the dot was seen (broadcast rays: 0). */
  edgeAge: number;
}

/** What the broadcast rays drawn so far crossed. */
interface RayRecord {
  /** Rays checked, once per frame each is on screen. */
  checked: number;
  /** Of those, rays bowed around a card (quadratic paths). */
  curved: number;
  /** "from -> to crosses card" for every ray that ran through the inside of a card. */
  crossings: string[];
}

/**
 * Installed before the app loads: on every animation frame, every visible pulse dot (opacity
 * above zero) is measured against the path it moves along, in the coordinates of its own SVG;
 * and every broadcast ray is walked in 2 px steps on screen against every card's box (less 1 px
 * of border): a ray may touch a card's border but never run through its inside. A team's box is
 * no obstacle to rays from, to or between its own members.
 */
function recordPulses(): void {
  const samples: PulseSample[] = [];
  const rays: RayRecord = { checked: 0, curved: 0, crossings: [] };
  const born = new WeakMap<Element, number>();
  (window as unknown as { pulseSamples: PulseSample[] }).pulseSamples = samples;
  (window as unknown as { rayRecord: RayRecord }).rayRecord = rays;
  const probe = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  // A card that has just grown is measured by Vue Flow after this frame's callbacks: a crossing
  // counts when it holds in two frames running (the same ray, the same card), not for one frame.
  let lastFrame = new Set<string>();
  const checkRays = () => {
    const thisFrame = new Set<string>();
    const rayPaths = document.querySelectorAll<SVGPathElement>('[data-testid="broadcast-pulse"] path.ray');
    if (rayPaths.length === 0) {
      lastFrame = thisFrame;
      return;
    }
    const cards = Array.from(document.querySelectorAll<HTMLElement>('.vue-flow__node'), (node) => ({
      id: node.dataset.id ?? '?',
      rect: node.getBoundingClientRect(),
    }));
    for (const ray of Array.from(rayPaths)) {
      const from = ray.dataset.from ?? '';
      const to = ray.dataset.to ?? '';
      const matrix = ray.getScreenCTM();
      if (!matrix) continue;
      rays.checked += 1;
      if ((ray.getAttribute('d') ?? '').includes('Q')) rays.curved += 1;
      const holds = (id: string, member: string) => member.startsWith(`${id}/`);
      const obstacles = cards.filter((card) => !holds(card.id, from) && !holds(card.id, to));
      const length = ray.getTotalLength();
      const steps = Math.max(2, Math.ceil((length * matrix.a) / 2));
      for (let step = 0; step <= steps; step += 1) {
        const local = ray.getPointAtLength((length * step) / steps);
        const point = new DOMPoint(local.x, local.y).matrixTransform(matrix);
        const hit = obstacles.find(
          ({ rect }) =>
            point.x > rect.left + 1 &&
            point.x < rect.right - 1 &&
            point.y > rect.top + 1 &&
            point.y < rect.bottom - 1,
        );
        if (!hit) continue;
        const crossing = `${from} -> ${to} crosses ${hit.id}`;
        thisFrame.add(crossing);
        if (lastFrame.has(crossing) && !rays.crossings.includes(crossing)) rays.crossings.push(crossing);
        break;
      }
    }
    lastFrame = thisFrame;
  };
  const tick = (now: number) => {
    checkRays();
    for (const svg of Array.from(document.querySelectorAll('svg.vue-flow__edges')))
      if (!born.has(svg)) born.set(svg, now);
    const dots = document.querySelectorAll<SVGCircleElement>(
      '.vue-flow circle.pulse-dot, [data-testid="broadcast-pulse"] circle',
    );
    for (const dot of Array.from(dots)) {
      if (Number(getComputedStyle(dot).opacity) <= 0.01) continue;
      const path = dot.querySelector('animateMotion')?.getAttribute('path') ?? '';
      const matrix = dot.getCTM();
      const edgeSvg = dot.closest('svg.vue-flow__edges');
      const kind = dot.classList.contains('pulse-dot') ? 'edge' : 'broadcast';
      const edgeAge = edgeSvg ? now - (born.get(edgeSvg) ?? now) : 0;
      if (!path || !matrix) {
        samples.push({ kind, offPath: -1, along: 0, edgeAge });
        continue;
      }
      probe.setAttribute('d', path);
      const length = probe.getTotalLength();
      let best = Infinity;
      let along = 0;
      for (let step = 0; step <= 200; step++) {
        const point = probe.getPointAtLength((length * step) / 200);
        const distance = Math.hypot(point.x - matrix.e, point.y - matrix.f);
        if (distance < best) {
          best = distance;
          along = step / 200;
        }
      }
      samples.push({ kind, offPath: Number.isFinite(best) ? best : -1, along, edgeAge });
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

const readRays = (page: Page) =>
  page.evaluate(() => (window as unknown as { rayRecord: RayRecord }).rayRecord);
const resetRays = (page: Page) =>
  page.evaluate(() => {
    const record = (window as unknown as { rayRecord: RayRecord }).rayRecord;
    Object.assign(record, { checked: 0, curved: 0, crossings: [] });
  });

describe('pulses on the graph of a live run (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;

  beforeAll(async () => {
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      initScript: 'window.__name = (fn) => fn;',
      open: false,
    }));
    await page.addInitScript(recordPulses);
    await openApp(page, host.url);
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  /** Starts a run of `fleet` and opens its graph while it runs. */
  async function watchRun(fleet: FleetInput): Promise<void> {
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet },
      task: 'Pass the work round',
    });
    await openGraph(page, sessionId);
  }
  /**
   * A picture of the first ray matching `match` for a person to judge, taken once one shows
   * (not an assertion: a ray lasts under a second, and the run may end first).
   */
  const pictureOfRay = (match: string, name: string) =>
    page
      .locator(`[data-testid="broadcast-pulse"] path.ray${match}`)
      .first()
      .waitFor({ timeout: 20_000 })
      .then(
        () => shot(page, name),
        () => undefined,
      );
  const untilCompleted = () =>
    expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');

  it('moves every pulse dot along its path (none left at the corner), on old edges too', async () => {
    await runExample(page, 'Debate', 'Is tea better than coffee?');
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const samples = await page.evaluate(
      () => (window as unknown as { pulseSamples: PulseSample[] }).pulseSamples,
    );
    expect(samples.filter((sample) => sample.kind === 'broadcast').length).toBeGreaterThan(0);
    expect(samples.filter((sample) => sample.kind === 'edge').length).toBeGreaterThan(0);
    // Every visible dot is on the path it follows: none drawn before its path is known.
    const astray = samples.filter((sample) => sample.offPath < 0 || sample.offPath > 2);
    expect(astray).toEqual([]);
    // A message along an edge drawn before it still travels (an animation begins at its SVG's
    // time zero: on an edge older than the 0.7 s pulse it would be over, frozen at its end, unseen).
    const onOldEdges = samples.filter((sample) => sample.kind === 'edge' && sample.edgeAge > 800);
    expect(onOldEdges.some((sample) => sample.along > 0.05 && sample.along < 0.95)).toBe(true);
    // The debaters' broadcasts run from border to border: never through a card.
    const rays = await readRays(page);
    expect(rays.checked).toBeGreaterThan(0);
    expect(rays.crossings).toEqual([]);
  });

  for (const size of SIZES)
    for (const theme of THEMES)
      it(`at ${size.name} in ${theme}: broadcast rays bow round the hub and never cross a card`, async () => {
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.emulateMedia({ colorScheme: theme });
        await resetRays(page);
        await watchRun(HUB_FLEET);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        const picture = pictureOfRay('[d*="Q"]', `graph-pulses-hub-${size.name}-${theme}.png`);
        await untilCompleted();
        await picture;
        const rays = await readRays(page);
        expect(rays.checked).toBeGreaterThan(0);
        // Some broadcast had the hub in its straight way and went round it.
        expect(rays.curved).toBeGreaterThan(0);
        expect(rays.crossings).toEqual([]);
      });

  it('keeps the broadcasts between the members of a nested team off their team mates', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.emulateMedia({ colorScheme: 'light' });
    await resetRays(page);
    await watchRun(NESTED_FLEET);
    const picture = pictureOfRay('[data-from^="research/"]', 'graph-pulses-nested-1024x700-light.png');
    await untilCompleted();
    await picture;
    const rays = await readRays(page);
    expect(rays.checked).toBeGreaterThan(0);
    expect(rays.crossings).toEqual([]);
  });
});
