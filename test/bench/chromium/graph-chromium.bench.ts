import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../../helpers/browser';
import { makeTempDir } from '../../helpers/temp-dir';
import { callHost, openApp } from '../../e2e/session-helpers';
import { installProbes, type FrameFigures, type Probes } from './probes';
import { streamingFleet } from './streaming-fleet';

/**
 * The session graph in Chromium against the real web host (issue 12): frames while 16 of 50
 * agents stream, beside the same 50-agent graph idle (the run stopped, nothing moving) measured
 * in the same run, over interleaved repetitions with their spread. Written to
 * test-artifacts/bench/graph-chromium.json. Never asserted on time.
 */
const RUNS = 3;
const TOKEN = 'bench-graph-token-0123456789abcdef01234567';
const ARTIFACT = fileURLToPath(new URL('../../../test-artifacts/bench/graph-chromium.json', import.meta.url));
const VIEWPORT = { width: 1920, height: 1080 };

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const f = (ms: number): string => `${ms.toFixed(0)} ms`;

function frames(page: Page, ms: number): Promise<FrameFigures> {
  return page.evaluate(
    (duration) =>
      (window as unknown as { fleetscopeBench: Probes }).fleetscopeBench.watchFrames({ ms: duration }),
    ms,
  );
}

describe('the session graph in Chromium', () => {
  const temp = makeTempDir('fleetscope-bench-graph-');
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const lines: string[] = [];
  const results: Record<string, unknown> = { agents: 50, streaming: 16, viewport: VIEWPORT };

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'), { token: TOKEN });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
    await page.setViewportSize(VIEWPORT);
    await openApp(page, host.url);
    await page.evaluate(() => localStorage.setItem('fleetscope.sessionLens', 'graph'));
    await page.evaluate(installProbes);
  });

  afterAll(async () => {
    console.log(
      `\nSession graph in Chromium (web host, ${VIEWPORT.width}x${VIEWPORT.height})\n${lines.join('\n')}`,
    );
    mkdirSync(dirname(ARTIFACT), { recursive: true });
    writeFileSync(ARTIFACT, `${JSON.stringify(results, null, 2)}\n`);
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  const open = async (sessionId: string) => {
    await page.evaluate(() => (window.location.hash = '#/sessions'));
    await page.getByTestId('session-view').waitFor({ state: 'detached' });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor({ timeout: 30_000 });
  };

  it('keeps frames flowing in the graph while 16 of 50 agents stream', async () => {
    const idle: FrameFigures[] = [];
    const busy: FrameFigures[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
        source: { fleet: streamingFleet() },
        task: `Stream at once (${run + 1})`,
      });
      await open(sessionId);
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="agent-node"][data-status="streaming"]').length >= 8,
        undefined,
        { timeout: 30_000 },
      );
      busy.push(await frames(page, 4000));
      await callHost(host.port, TOKEN, 'runs.control', { sessionId, action: 'stop' }).catch(() => undefined);
      // The same 50-agent graph once the run has stopped: the baseline, in the same run.
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="agent-node"][data-status="streaming"]').length === 0,
        undefined,
        { timeout: 30_000 },
      );
      await open(sessionId);
      idle.push(await frames(page, 2000));
    }
    const pick = (list: FrameFigures[], key: keyof FrameFigures) => list.map((figures) => figures[key]);
    results.frames = { idle, busy, goal: { fps: 60, longestTaskMs: 50 } };
    const describeFrames = (list: FrameFigures[]) =>
      `${median(pick(list, 'fps')).toFixed(1)} fps (${spread(pick(list, 'fps'), 1)}), p95 gap ${f(median(pick(list, 'p95Gap')))}, ` +
      `worst gap ${f(median(pick(list, 'worstGap')))}, longest task ${f(median(pick(list, 'longestTask')))} (${spread(pick(list, 'longestTask'))}), ` +
      `${median(pick(list, 'longTasks'))} tasks over 50 ms`;
    lines.push(
      `  the same 50-agent graph idle (baseline, ${RUNS} runs): ${describeFrames(idle)}`,
      `  16 of 50 agents streaming in the graph (${RUNS} runs, up to ${Math.max(...pick(busy, 'streamingNodes'))} nodes streaming): ${describeFrames(busy)}`,
      `  streaming / idle fps: ${(median(pick(busy, 'fps')) / median(pick(idle, 'fps'))).toFixed(2)} (goal 60 fps, no task over 50 ms)`,
    );
  });
});
