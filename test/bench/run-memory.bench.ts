import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ReplayModelClient } from '../../src-main/llm';
import { RunManager } from '../../src-main/orchestrator';
import { checked, fleet, llm, scripted } from '../helpers/fleet-builders';
import { openTempHistory } from '../helpers/temp-store';
import { BenchReport } from './harness';

/**
 * Finished runs are released: 1,000 sequential runs of a small fleet (two scripted agents and an
 * LLM agent answered by a replay client) through one RunManager into a real SQLite store in a temp
 * folder, in one process. Heap in use after a forced full GC is read at run 100 and run 1,000; the
 * figure is their ratio and the slope between them (KB per run), over 3 repetitions. The same
 * measurement with every finished run kept (as before runs were released) is printed as the
 * contrast. No assertions on the figures.
 */
const RUNS = 1_000;
const FIRST_MARK = 100;
const REPETITIONS = 3;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function retainedHeap(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const team = fleet({
  agents: [
    scripted('planner', [{ content: 'Here is the plan, step by step, in a few words.', chunkSize: 6 }]),
    llm('worker', 'http://replay.invalid/v1'),
    scripted('reviewer', [{ content: 'Looks good to me; ship it.', chunkSize: 6 }]),
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 4 },
});

interface Measurement {
  atFirstMark: number;
  atEnd: number;
}

async function measure(keepFinished: number): Promise<Measurement> {
  const history = openTempHistory();
  try {
    const manager = new RunManager({ sink: history.store, env: {} }, { keepFinished });
    let atFirstMark = 0;
    for (let index = 1; index <= RUNS; index += 1) {
      const model = new ReplayModelClient(() => ({ type: 'text', content: 'Done: the work is finished.' }));
      const handle = manager.start({
        ...checked(team),
        task: `Task number ${index}`,
        models: model.asFactory(),
      });
      const summary = await handle.done;
      if (summary.status !== 'completed')
        throw new Error(`run ${index} ended ${summary.status}: ${summary.detail}`);
      if (index === FIRST_MARK) atFirstMark = retainedHeap();
    }
    const atEnd = retainedHeap();
    expect(history.store.listSessions({ limit: 1 }).total).toBe(RUNS);
    return { atFirstMark, atEnd };
  } finally {
    history.cleanup();
  }
}

const kb = (bytes: number) => bytes / 1024;
const slope = (m: Measurement) => kb(m.atEnd - m.atFirstMark) / (RUNS - FIRST_MARK);
const ratio = (m: Measurement) => m.atEnd / m.atFirstMark;
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}..${Math.max(...values).toFixed(2)}`;

function describeRuns(label: string, runs: Measurement[]): string[] {
  const lines = runs.map(
    (m, index) =>
      `  ${label} #${index + 1}: heap ${kb(m.atFirstMark).toFixed(0)} KB at run ${FIRST_MARK}, ${kb(m.atEnd).toFixed(0)} KB at run ${RUNS}; ratio ${ratio(m).toFixed(3)}, slope ${slope(m).toFixed(2)} KB/run`,
  );
  lines.push(
    `  ${label}: ratio ${spread(runs.map(ratio))}, slope ${spread(runs.map(slope))} KB/run over ${runs.length} repetitions`,
  );
  return lines;
}

describe('memory across sequential runs', () => {
  it(`${RUNS} sequential runs in one process: heap at run ${FIRST_MARK} vs run ${RUNS}`, async () => {
    await measure(32); // warm-up: JIT, statement caches
    const released: Measurement[] = [];
    const kept: Measurement[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition += 1) {
      released.push(await measure(32));
      kept.push(await measure(RUNS));
    }
    console.log(
      [
        `retained heap after forced GC, ${RUNS} sequential runs (4 messages each) into SQLite:`,
        ...describeRuns('finished runs released (keep 32)', released),
        ...describeRuns('baseline: every finished run kept', kept),
      ].join('\n'),
    );
    const report = new BenchReport('run-memory', `Retained heap over ${RUNS} sequential runs into SQLite`, {
      runs: RUNS,
      firstMark: FIRST_MARK,
      released,
      kept,
    });
    report.add({
      id: 'heap-slope',
      label: `heap growth per run, runs ${FIRST_MARK}..${RUNS}, finished runs released`,
      unit: 'KB/run',
      values: released.map(slope),
      baseline: { label: 'every finished run kept', values: kept.map(slope) },
      goal: { kind: 'info', text: 'flat: ~0 KB/run' },
    });
    report.finish();
  });
});
