import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../../helpers/browser';
import { makeTempDir } from '../../helpers/temp-dir';
import { callHost, openApp } from '../../e2e/session-helpers';
import { installProbes, type FrameFigures, type OpenFigures, type Probes } from './probes';
import { seedDataDir } from './seed';
import { streamingFleet } from './streaming-fleet';

/**
 * Session view figures in Chromium against the real web host (issue 5, DESIGN.md section 6):
 * opening a 100k-message session, seeking in it, and frame rate while 16 of 50 agents stream.
 * Printed next to their goals and a same-run baseline; never asserted on time.
 */
const MESSAGES = 100_000;
const OPENS = 5;
const SEEKS = 60;
const TOKEN = 'bench-ui-token-0123456789abcdef0123456789';

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
};
const f = (ms: number): string => `${ms.toFixed(0)} ms`;

function probes(page: Page) {
  const call = <K extends keyof Probes>(name: K, args?: Parameters<Probes[K]>[0]) =>
    page.evaluate(
      ({ name, args }) =>
        (window as unknown as { fleetscopeBench: Record<string, (a: unknown) => unknown> }).fleetscopeBench[
          name
        ]!(args),
      { name, args },
    ) as ReturnType<Probes[K]>;
  return {
    open: (id: string, empty: boolean) => call('openSession', { id, empty }),
    leave: () => call('leaveSession'),
    seek: (count: number) => call('seekRandomly', { count }),
    frames: (ms: number) => call('watchFrames', { ms }),
  };
}

describe('session view in Chromium', () => {
  const temp = makeTempDir('fleetscope-bench-ui-');
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let ids: { longId: string; emptyId: string };
  const lines: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    const dataDir = join(temp.dir, 'data');
    const seeded = Date.now();
    ids = seedDataDir(dataDir, MESSAGES);
    lines.push(`  (seeded ${MESSAGES} messages through the HistoryStore in ${f(Date.now() - seeded)})`);
    host = await spawnHost(dataDir, { token: TOKEN });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
    await openApp(page, host.url);
    await page.evaluate(installProbes);
  });

  afterAll(async () => {
    console.log(`\nSession view in Chromium (web host)\n${lines.join('\n')}`);
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  it(`opens a ${MESSAGES}-message session and seeks in it`, async () => {
    const probe = probes(page);
    const empty: OpenFigures[] = [];
    const long: OpenFigures[] = [];
    for (let i = 0; i < OPENS; i++) {
      empty.push(await probe.open(ids.emptyId, true));
      await probe.leave();
      long.push(await probe.open(ids.longId, false));
      await probe.leave();
    }
    const median = (list: OpenFigures[], key: keyof OpenFigures) =>
      percentile(
        list.map((o) => o[key]),
        0.5,
      );
    lines.push(
      `  open empty session (baseline): median ${f(median(empty, 'dom'))} to content, ${f(median(empty, 'frame'))} to next frame`,
      `  open ${MESSAGES}-message session: median ${f(median(long, 'dom'))} to content, ${f(median(long, 'frame'))} to next frame (goal < 300 ms; ${(median(long, 'frame') / median(empty, 'frame')).toFixed(1)}x empty)`,
    );

    await probe.open(ids.longId, false);
    const loadStart = Date.now();
    await page.getByTestId('session-loading').waitFor({ state: 'detached', timeout: 120_000 });
    lines.push(`  full event log loaded in the background after ${f(Date.now() - loadStart)} more`);
    const seeks = await probe.seek(SEEKS);
    lines.push(
      `  seek by scrubber (${seeks.dom.length} random positions): p50 ${f(percentile(seeks.dom, 0.5))}, p95 ${f(percentile(seeks.dom, 0.95))} to label; ` +
        `p50 ${f(percentile(seeks.frame, 0.5))}, p95 ${f(percentile(seeks.frame, 0.95))} to next frame (goal p95 < 50 ms)`,
    );
    await probe.leave();
  });

  it('keeps frames flowing while 16 of 50 agents stream', async () => {
    const probe = probes(page);
    await probe.open(ids.emptyId, true);
    const idle = await probe.frames(2000);
    await probe.leave();

    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: streamingFleet() },
      task: 'Stream at once',
    });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="agent-node"][data-status="streaming"]').length >= 8,
      undefined,
      { timeout: 30_000 },
    );
    const busy = await probe.frames(4000);
    const describeFrames = (figures: FrameFigures) =>
      `${figures.fps.toFixed(1)} fps, worst frame gap ${f(figures.worstGap)}, p95 gap ${f(figures.p95Gap)}, longest task ${f(figures.longestTask)} (${figures.longTasks} over 50 ms)`;
    lines.push(
      `  idle session view (baseline): ${describeFrames(idle)}`,
      `  16 of 50 agents streaming (up to ${busy.streamingNodes} streaming nodes seen): ${describeFrames(busy)} (goal 60 fps, no task over 50 ms)`,
    );
    await callHost(host.port, TOKEN, 'runs.control', { sessionId, action: 'stop' }).catch(() => undefined);
    await probe.leave();
  });
});
