import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Fleet, RunEvent } from '../../../src-shared/domain';
import { fleetSchema } from '../../../src-shared/domain';
import { openHistory, type ImportedEvent } from '../../../src-main/history';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../../helpers/browser';
import { makeTempDir } from '../../helpers/temp-dir';
import { openApp } from '../../e2e/session-helpers';
import { BenchReport, benchReps, benchSize, interleave } from '../harness';
import { installProbes, type CompareFigures, type Probes } from './probes';

/**
 * Opening a comparison of two branches in Chromium against the real web host (issue 11): two
 * 10,000-message branches of one family (a root, and a fork of it at message 5,000 with 5,000
 * messages of its own) beside the same-run baseline of two 10-message branches shaped the same
 * way. Time to the summary line, to the first aligned pair drawn, and to the next frame, over
 * interleaved repetitions with their spread (the shared harness: printed as a goal table and
 * written to test-artifacts/bench/compare-first-paint.json). Never asserted on time.
 * FLEETSCOPE_BENCH_COMPARE_MESSAGES sets the branches' length, FLEETSCOPE_BENCH_REPS the repetitions.
 */
const LARGE = benchSize('FLEETSCOPE_BENCH_COMPARE_MESSAGES', 10_000);
const SMALL = 10;
const REPS = benchReps(5);
const AGENTS = ['planner', 'writer', 'critic', 'editor'];

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
    const at = Math.floor(messages / 2);
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
  const report = new BenchReport(
    'compare-first-paint',
    `Compare view in Chromium (web host), two ${LARGE}-message branches`,
    {
      largeMessages: LARGE,
      smallMessages: SMALL,
      forkAt: LARGE / 2,
      reps: REPS,
    },
  );

  beforeAll(async () => {
    ensureBuilt();
    const dataDir = join(temp.dir, 'data');
    const seeded = performance.now();
    large = seedBranches(dataDir, LARGE);
    small = seedBranches(dataDir, SMALL);
    report.context.seedMs = performance.now() - seeded;
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
    report.finish();
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  it(`opens a comparison of two ${LARGE}-message branches`, async () => {
    const probe = probes(page);
    const seen: Record<'small' | 'large', CompareFigures[]> = { small: [], large: [] };
    const open = async (which: 'small' | 'large') => {
      const pair = which === 'small' ? small : large;
      const figures = await probe.open(pair.a, pair.b);
      await probe.leave();
      seen[which].push(figures);
      return figures.frame;
    };
    // Warm-up, unmeasured: the first open loads the view's code and the host's pages.
    await open('small');
    await open('large');
    seen.small = [];
    seen.large = [];
    const times = await interleave(REPS, { large: () => open('large'), small: () => open('small') });
    const pick = (which: 'small' | 'large', key: keyof CompareFigures) => seen[which].map((run) => run[key]);
    report.add({
      id: 'compare-first-paint',
      label: `open a compare of two ${LARGE}-message branches (fork at ${LARGE / 2}) to the painted frame`,
      unit: 'ms',
      values: times.large,
      baseline: { label: `same, two ${SMALL}-message branches`, values: times.small },
      goal: { kind: 'value', max: 300, text: '< 300 ms, as a session opens' },
      note: 'painted: the summary line, the folded common prefix, the point of divergence and the first aligned pairs',
    });
    report.add({
      id: 'compare-summary',
      label: `summary line of the ${LARGE}-message compare shown`,
      unit: 'ms',
      values: pick('large', 'summary'),
      baseline: { label: `same, two ${SMALL}-message branches`, values: pick('small', 'summary') },
      goal: { kind: 'info', text: 'the backend answer (figures, prefix, edges) plus the view' },
    });
    report.add({
      id: 'compare-first-pair',
      label: `first aligned pair of the ${LARGE}-message compare drawn`,
      unit: 'ms',
      values: pick('large', 'rows'),
      baseline: { label: `same, two ${SMALL}-message branches`, values: pick('small', 'rows') },
      goal: { kind: 'info', text: 'the page where the branches part, fetched first' },
    });
  });
});
