import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Fleet, RunEvent } from '../../../src-shared/domain';
import { fleetSchema } from '../../../src-shared/domain';
import { openHistory, type ImportedEvent } from '../../../src-main/history';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../../helpers/browser';
import { makeTempDir } from '../../helpers/temp-dir';
import { openApp } from '../../e2e/session-helpers';
import { installProbes, type CompareFigures, type Probes } from './probes';

/**
 * Opening a comparison of two branches in Chromium against the real web host (issue 11): two
 * 10,000-message branches of one family (a root, and a fork of it at message 5,000 with 5,000
 * messages of its own) beside the same-run baseline of two 10-message branches shaped the same
 * way. Time to the summary line, to the first aligned pair drawn, and to the next frame, over
 * interleaved repetitions with their spread; printed and written to
 * test-artifacts/bench/compare-first-paint.json. Never asserted on time.
 */
const LARGE = 10_000;
const SMALL = 10;
const OPENS = 5;
const ARTIFACT = fileURLToPath(
  new URL('../../../test-artifacts/bench/compare-first-paint.json', import.meta.url),
);
const AGENTS = ['planner', 'writer', 'critic', 'editor'];

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
const f = (ms: number): string => `${ms.toFixed(0)} ms`;

const fleet: Fleet = fleetSchema.parse({
  version: 1,
  name: 'bench-compare',
  agents: AGENTS.map((name) => ({ name, type: 'scripted', script: [{ content: 'ok' }] })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 20 },
});

function completed(i: number, branch: string, t: number) {
  const from = AGENTS[i % AGENTS.length] as string;
  return {
    id: `${branch}-m${i}`,
    threadId: `thread-${Math.floor(i / 100)}`,
    parentId: null,
    from,
    to: AGENTS[(i + 1) % AGENTS.length] as string,
    kind: 'text' as const,
    content: `Message ${i} (${branch}): the quick brown fox jumps over the lazy dog while the ${from} weighs step ${i % 89}.`,
    meta: {},
    usage: { prompt: 10, completion: 20 },
    state: 'complete' as const,
    t,
  };
}

function* rootEvents(messages: number): Generator<ImportedEvent> {
  yield {
    t: 0,
    agent: null,
    kind: 'session.started',
    payload: {
      title: 'root',
      task: 'bench',
      fleetName: fleet.name,
      fleet,
      parentSessionId: null,
      forkSeq: null,
    },
  } as ImportedEvent;
  for (let i = 0; i < messages; i++) {
    const message = completed(i, 'root', 1 + i * 10);
    yield {
      t: message.t,
      agent: message.from,
      kind: 'message.completed',
      payload: { message },
    } as ImportedEvent;
  }
  yield {
    t: 1 + messages * 10,
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: 'bench done' },
  } as ImportedEvent;
}

/**
 * A root of `messages` messages and a fork of it at the middle (its text edited) that goes on
 * with as many messages of its own as the root has after the fork point: two branches of equal
 * length. The fork is made by reference, as the app makes it; its own messages are appended.
 */
function seedBranches(dataDir: string, messages: number): { a: string; b: string } {
  const history = openHistory(dataDir, { checkpointInterval: 500 });
  try {
    const meta = { task: 'bench', fleetName: fleet.name, source: 'bench', createdAt: Date.now(), tags: [] };
    const rootId = history.store.importSession({ ...meta, title: `Root ${messages}` }, rootEvents(messages));
    const at = messages / 2;
    const fork = history.store.createFork({
      parentId: rootId,
      atMessage: at,
      text: 'An edited turn that sends the branch another way.',
      fleet,
      title: `Fork of ${messages} at ${at}`,
      changes: [],
    });
    let seq = fork.forkSeq;
    let t = 0;
    for (const event of history.store.iterateEvents(fork.sessionId, fork.forkSeq)) {
      seq = event.seq;
      t = event.t;
    }
    const append = (body: Omit<RunEvent, 'sessionId' | 'seq' | 't'>) => {
      seq += 1;
      t += 10;
      history.store.append({ ...body, sessionId: fork.sessionId, seq, t } as RunEvent);
    };
    append({ agent: null, kind: 'session.continued', payload: { task: '', context: {} } });
    for (let i = at; i < messages; i++) {
      append({ agent: null, kind: 'message.completed', payload: { message: completed(i, 'fork', t) } });
    }
    append({
      agent: null,
      kind: 'session.stopped',
      payload: { status: 'completed', stopReason: 'bench done' },
    });
    history.store.flush();
    return { a: rootId, b: fork.sessionId };
  } finally {
    history.close();
  }
}

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
    open: (a: string, b: string) => call('openCompare', { a, b }),
    leave: () => call('leaveCompare'),
  };
}

describe('the compare view in Chromium', () => {
  const temp = makeTempDir('fleetscope-bench-compare-');
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let large: { a: string; b: string };
  let small: { a: string; b: string };
  const lines: string[] = [];
  const results: Record<string, unknown> = { largeMessages: LARGE, smallMessages: SMALL };

  beforeAll(async () => {
    ensureBuilt();
    const dataDir = join(temp.dir, 'data');
    const seeded = Date.now();
    large = seedBranches(dataDir, LARGE);
    small = seedBranches(dataDir, SMALL);
    lines.push(
      `  (seeded two ${LARGE}-message branches through the HistoryStore in ${f(Date.now() - seeded)})`,
    );
    host = await spawnHost(dataDir);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1920, height: 1080 });
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
    await openApp(page, host.url);
    await page.evaluate(installProbes);
  });

  afterAll(async () => {
    console.log(`\nCompare view in Chromium (web host)\n${lines.join('\n')}`);
    mkdirSync(dirname(ARTIFACT), { recursive: true });
    writeFileSync(ARTIFACT, `${JSON.stringify(results, null, 2)}\n`);
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  it(`opens a comparison of two ${LARGE}-message branches`, async () => {
    const probe = probes(page);
    const smallRuns: CompareFigures[] = [];
    const largeRuns: CompareFigures[] = [];
    // One open of each first, unmeasured: the first open of the view loads its code.
    await probe.open(small.a, small.b);
    await probe.leave();
    for (let i = 0; i < OPENS; i++) {
      smallRuns.push(await probe.open(small.a, small.b));
      await probe.leave();
      largeRuns.push(await probe.open(large.a, large.b));
      await probe.leave();
    }
    const pick = (runs: CompareFigures[], key: keyof CompareFigures) => runs.map((run) => run[key]);
    results.open = {
      smallSummaryMs: pick(smallRuns, 'summary'),
      smallFrameMs: pick(smallRuns, 'frame'),
      largeSummaryMs: pick(largeRuns, 'summary'),
      largeRowsMs: pick(largeRuns, 'rows'),
      largeFrameMs: pick(largeRuns, 'frame'),
    };
    const ratio = median(pick(largeRuns, 'frame')) / median(pick(smallRuns, 'frame'));
    results.ratio = ratio;
    lines.push(
      `  two ${SMALL}-message branches (baseline): median ${f(median(pick(smallRuns, 'summary')))} to the summary, ` +
        `${f(median(pick(smallRuns, 'frame')))} to first paint (${spread(pick(smallRuns, 'frame'))} over ${OPENS})`,
      `  two ${LARGE}-message branches: median ${f(median(pick(largeRuns, 'summary')))} to the summary, ` +
        `${f(median(pick(largeRuns, 'rows')))} to the first aligned pair, ${f(median(pick(largeRuns, 'frame')))} to first paint ` +
        `(${spread(pick(largeRuns, 'frame'))} over ${OPENS}; ${ratio.toFixed(2)}x the baseline)`,
    );
  });
});
