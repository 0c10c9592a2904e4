import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { openApp, runExample } from './session-helpers';

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

/**
 * Installed before the app loads: on every animation frame, every visible pulse dot (opacity
 * above zero) is measured against the path it moves along, in the coordinates of its own SVG.
 */
function recordPulses(): void {
  const samples: PulseSample[] = [];
  const born = new WeakMap<Element, number>();
  (window as unknown as { pulseSamples: PulseSample[] }).pulseSamples = samples;
  const probe = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  const tick = (now: number) => {
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

describe('pulses on the graph of a live run (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
    await page.addInitScript(recordPulses);
    await openApp(page, host.url);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

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
  });
});
