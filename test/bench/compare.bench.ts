import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import type { FleetscopeApp } from '../../src-main/app';
import { makeTempDir } from '../helpers/temp-dir';
import { createBenchApp, importRunnableSession } from './runnable-session';
import { BenchReport, benchReps, benchSize, interleave } from './harness';

/**
 * Opening a comparison of two MESSAGES-message branches (FLEETSCOPE_BENCH_COMPARE_MESSAGES,
 * default 10,000): a stored session and a fork of it at its middle message, with an edit, that
 * went on with as many messages of its own. The figure is the time to the first page of the
 * compare data through the contract (`branches.compare`, 50 aligned pairs with word diffs, the
 * common prefix, per-agent figures, stop reasons and edges), and to the page at the point of
 * divergence; the baseline, in the same run, loads both transcripts whole through
 * `sessions.messages` (what a compare without paging would read first). The renderer's first
 * paint is measured by the UI bench. Interleaved repetitions; printed and written as JSON.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_COMPARE_MESSAGES', 10_000);
const REPS = benchReps();
const PAGE = 50;
/* Each figure opens the comparison cold (the comparer's kept frames forgotten) unless it says so. */

const temp = makeTempDir('fleetscope-bench-compare-');
afterAll(() => temp.remove());

/** Appends `count` messages of the fork's own, as a run of it would record them. */
function goOn(app: FleetscopeApp, sessionId: string, count: number): void {
  let seq = app.store.countEvents(sessionId);
  let t = 1_000_000;
  const append = (body: Omit<RunEvent, 'sessionId' | 'seq' | 't'>) =>
    app.store.append({ ...body, sessionId, seq: (seq += 1), t: (t += 5) } as RunEvent);
  append({ agent: null, kind: 'session.continued', payload: { task: '', context: {} } });
  const agents = ['planner', 'coder', 'reviewer'];
  for (let i = 0; i < count; i++) {
    const from = agents[i % 3] as string;
    const id = `fork-msg-${i}`;
    const content = `In this branch ${from} suggests change ${i}: rename the helper and keep the tests as they are.`;
    const opening = { messageId: id, threadId: 'fork', parentId: null, from, to: '*', kind: 'text' as const };
    append({ agent: from, kind: 'message.started', payload: opening });
    append({
      agent: from,
      kind: 'message.completed',
      payload: {
        message: {
          id,
          threadId: 'fork',
          parentId: null,
          from,
          to: '*',
          kind: 'text',
          content,
          meta: {},
          state: 'complete',
          t,
          usage: { prompt: 40, completion: 20 },
        },
      },
    });
  }
  append({
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: 'max-messages' },
  });
  app.store.flush();
}

describe('compare', () => {
  it(`opens a compare of two ${MESSAGES}-message branches`, async () => {
    const app = createBenchApp(join(temp.dir, 'data'));
    const a = importRunnableSession(app, MESSAGES);
    const half = Math.floor(MESSAGES / 2);
    const fork = await app.call('branches.fork', {
      sessionId: a,
      atMessage: half,
      text: 'Edited here',
      run: false,
    });
    const b = fork.sessionId;
    goOn(app, b, MESSAGES - half);
    expect((await app.call('sessions.get', { id: b })).summary.messageCount).toBe(MESSAGES);

    // A second, unrelated session with the same transcript: the prefix must be read pair by pair.
    const twin = importRunnableSession(app, MESSAGES);
    const first = await app.call('branches.compare', { a, b, offset: 0, limit: PAGE });
    expect(first).toMatchObject({ commonPrefix: half - 1, divergeAt: half, totalPairs: MESSAGES });
    const steps = {
      firstPage: async () => {
        app.branches.forgetComparisons();
        const started = performance.now();
        const page = await app.call('branches.compare', { a, b, offset: 0, limit: PAGE });
        const ms = performance.now() - started;
        expect(page.pairs).toHaveLength(PAGE);
        return ms;
      },
      divergencePage: async () => {
        app.branches.forgetComparisons();
        const started = performance.now();
        const page = await app.call('branches.compare', { a, b, offset: half - 1, limit: PAGE });
        const ms = performance.now() - started;
        expect(page.pairs[0]?.same).toBe(false);
        return ms;
      },
      nextPage: async () => {
        await app.call('branches.compare', { a, b, offset: 0, limit: PAGE });
        const started = performance.now();
        const page = await app.call('branches.compare', { a, b, offset: PAGE, limit: PAGE });
        const ms = performance.now() - started;
        expect(page.pairs).toHaveLength(PAGE);
        return ms;
      },
      identical: async () => {
        app.branches.forgetComparisons();
        const started = performance.now();
        const page = await app.call('branches.compare', { a, b: twin, offset: 0, limit: PAGE });
        const ms = performance.now() - started;
        expect(page.divergeAt).toBeNull();
        return ms;
      },
      baseline: async () => {
        const started = performance.now();
        let read = 0;
        for (const id of [a, b]) {
          let after = 0;
          for (;;) {
            const page = await app.call('sessions.messages', { id, after: { seq: after }, limit: 1000 });
            read += page.items.length;
            const last = page.items.at(-1);
            if (!page.hasAfter || !last) break;
            after = last.seq;
          }
        }
        const ms = performance.now() - started;
        expect(read).toBe(2 * MESSAGES);
        return ms;
      },
    };
    for (const step of Object.values(steps)) await step();
    const times = await interleave(REPS, steps);
    const report = new BenchReport('compare', `Opening a compare of two ${MESSAGES}-message branches`, {
      messages: MESSAGES,
      forkedAt: half,
      pageSize: PAGE,
      reps: REPS,
    });
    const baseline = {
      label: 'both transcripts loaded whole through sessions.messages',
      values: times.baseline,
    };
    report.add({
      id: 'compare-first-page',
      label: `branches.compare first page (${PAGE} pairs, figures, edges, prefix)`,
      unit: 'ms',
      values: times.firstPage,
      baseline,
      goal: { kind: 'info', text: 'opens fast; the UI bench measures first paint' },
    });
    report.add({
      id: 'compare-divergence-page',
      label: `branches.compare page at the point of divergence (message ${half})`,
      unit: 'ms',
      values: times.divergencePage,
      baseline,
      goal: { kind: 'info', text: 'opens fast; the UI bench measures first paint' },
    });
    report.add({
      id: 'compare-next-page',
      label: `branches.compare next page (pairs ${PAGE + 1}-${2 * PAGE}, frame kept)`,
      unit: 'ms',
      values: times.nextPage,
      baseline,
      goal: { kind: 'info', text: 'paging on reuses the comparison worked out for the first page' },
    });
    report.add({
      id: 'compare-identical',
      label: `branches.compare first page of two unrelated sessions with the same ${MESSAGES} messages (whole prefix read)`,
      unit: 'ms',
      values: times.identical,
      baseline,
      goal: { kind: 'info', text: 'the worst case: no history shared by reference' },
    });
    report.finish();
    await app.close();
  });
});
