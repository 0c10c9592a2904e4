import { describe, expect, it } from 'vitest';
import { fleetSchema, type FleetInput, type RunEvent } from '@shared/domain';
import { startRun, type EventSink } from '../../src-main/orchestrator';
import { createPricer, openHistory } from '../../src-main/history';
import { checked } from '../helpers/fleet-builders';
import { openTempHistory } from '../helpers/temp-store';
import { BenchReport, benchReps, benchSize, interleave } from './harness';
import { roundRobinTeam, useStubChild } from './stub/stub-suite';

/**
 * What tokens and cost cost:
 *   - the session list sorted by cost (and by tokens) against its default sort (newest first),
 *     SESSIONS sessions (FLEETSCOPE_BENCH_USAGE_SESSIONS, default 10,000), a 50-row page, each
 *     timed over LISTS calls; the query plan must walk an index in order, with no sort step;
 *   - recording usage and cost in a run: the peers' 4-agent round robin (TURNS turns,
 *     FLEETSCOPE_BENCH_USAGE_TURNS, default 400) against the bench stub in its own process, into
 *     the SQLite store, with every call priced as it is recorded (the app's pricer) against the
 *     same run whose events reach the store with no usage at all (the baseline: nothing recorded,
 *     nothing priced, nothing folded). Each run is timed twice: its wall time, and the CPU time of
 *     this process (runtime, SQLite writer and pricer; the stub runs elsewhere), which other
 *     processes on a shared machine sway far less. The baseline runs twice per repetition, so
 *     the spread of the same run against itself (the noise) is printed beside the figure.
 * Interleaved repetitions; printed and written as JSON; never asserted on time.
 */
const SESSIONS = benchSize('FLEETSCOPE_BENCH_USAGE_SESSIONS', 10_000);
const TURNS = benchSize('FLEETSCOPE_BENCH_USAGE_TURNS', 400);
const LISTS = 50;
const REPS = benchReps(5);

const suite = useStubChild('fleetscope-bench-usage-');
const freshFolder = suite.freshFolder;

/** Forwards every event with the usage taken off its messages: a run that records none. */
class WithoutUsage implements EventSink {
  constructor(private readonly store: EventSink) {}

  append(event: RunEvent): void {
    if (event.kind === 'usage') return;
    if (event.kind === 'message.completed' && event.payload.message.usage) {
      const { usage: _usage, ...message } = event.payload.message;
      this.store.append({ ...event, payload: { message } });
      return;
    }
    this.store.append(event);
  }

  flush(): void {
    this.store.flush();
  }

  whenDurable(callback: () => void): void {
    if (this.store.whenDurable) this.store.whenDurable(callback);
    else callback();
  }
}

/** A model the price table knows, so every call is really priced. */
const scenario = (): FleetInput => roundRobinTeam(suite.stub.baseUrl, 'gpt-4o-mini', TURNS);

/** Milliseconds of CPU this process used per turn in each run, in the order the runs ended. */
interface RunTimes {
  cpu: number[];
}

async function runInto(
  wrap: (store: EventSink) => EventSink,
  priced: boolean,
  times?: RunTimes,
): Promise<number> {
  const history = openHistory(freshFolder(), { recover: false });
  try {
    await suite.stub.reset();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const handle = startRun({
      ...checked(fleetSchema.parse(scenario())),
      task: 'Design a word counter, then review it.',
      sink: wrap(history.store),
      env: {},
      maxRetries: 0,
      ...(priced ? { pricer: createPricer() } : {}),
    });
    const summary = await handle.done;
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    times?.cpu.push((cpu.user + cpu.system) / 1000 / TURNS);
    expect(summary.messageCount).toBe(TURNS + 1);
    const cost = (history.db.prepare('SELECT cost FROM sessions').get() as { cost: number }).cost;
    expect(cost > 0).toBe(priced);
    return ms / TURNS;
  } finally {
    history.close();
  }
}

describe('usage and cost', () => {
  it(`sorts ${SESSIONS} sessions by cost as fast as by date, and records usage at no measurable cost`, async () => {
    const history = openTempHistory({ recover: false });
    try {
      const insert = history.db.prepare(`INSERT INTO sessions (id, title, status, created_at, updated_at,
        ended_at, message_count, tokens, cost, unpriced_calls) VALUES (?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?)`);
      history.db.transaction(() => {
        for (let i = 0; i < SESSIONS; i++) {
          const created = 1_700_000_000_000 + i * 60_000;
          const tokens = (i * 7919) % 100_000;
          insert.run(
            `ses-${i}`,
            `Session ${i}`,
            created,
            created + 5000,
            created + ((i * 31) % 900_000),
            10,
            tokens,
            tokens / 1e5,
            i % 3,
          );
        }
      })();
      history.db.exec('ANALYZE');
      for (const sort of ['cost', 'tokens', 'duration'] as const) {
        const plan = history.db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT * FROM sessions ORDER BY ${sort === 'duration' ? 'duration_ms' : sort} DESC, created_at DESC, id LIMIT 50`,
          )
          .all() as Array<{ detail: string }>;
        expect(plan.map((row) => row.detail).join('; ')).toMatch(/USING INDEX sessions_by_/);
        expect(plan.map((row) => row.detail).join('; ')).not.toMatch(/TEMP B-TREE/);
      }
      const listed = (sort?: 'cost' | 'tokens') => () => {
        const started = performance.now();
        for (let i = 0; i < LISTS; i++) {
          const page = history.store.listSessions({
            limit: 50,
            offset: (i * 50) % 1000,
            ...(sort ? { sort } : {}),
          });
          expect(page.items).toHaveLength(50);
        }
        return (performance.now() - started) / LISTS;
      };
      const byCost = history.store
        .listSessions({ limit: 3, sort: 'cost' })
        .items.map((item) => item.cost ?? 0);
      expect(byCost).toEqual([...byCost].sort((a, b) => b - a));
      const lists = await interleave(REPS, {
        created: listed(),
        cost: listed('cost'),
        tokens: listed('tokens'),
      });

      await runInto((store) => new WithoutUsage(store), false);
      await runInto((store) => store, true);
      const cpu = { without: { cpu: [] }, again: { cpu: [] }, priced: { cpu: [] } } satisfies Record<
        string,
        RunTimes
      >;
      const runs = await interleave(REPS, {
        without: () => runInto((store) => new WithoutUsage(store), false, cpu.without),
        priced: () => runInto((store) => store, true, cpu.priced),
        again: () => runInto((store) => new WithoutUsage(store), false, cpu.again),
      });

      const report = new BenchReport(
        'usage',
        `Usage and cost: ${SESSIONS} sessions listed, ${TURNS}-turn runs`,
        {
          sessions: SESSIONS,
          listsPerRep: LISTS,
          turns: TURNS,
          reps: REPS,
        },
      );
      const byDate = { label: 'sessions.list newest first (the default)', values: lists.created };
      report.add({
        id: 'list-by-cost',
        label: `sessions.list sorted by cost, ${SESSIONS} sessions, 50 rows`,
        unit: 'ms',
        values: lists.cost,
        baseline: byDate,
        goal: { kind: 'ratio', max: 1, text: 'no slower than the default sort' },
      });
      report.add({
        id: 'list-by-tokens',
        label: `sessions.list sorted by tokens, ${SESSIONS} sessions, 50 rows`,
        unit: 'ms',
        values: lists.tokens,
        baseline: byDate,
        goal: { kind: 'info', text: 'the same index-backed walk' },
      });
      report.add({
        id: 'usage-recording',
        label: 'runtime + SQLite per turn, usage recorded and priced',
        unit: 'ms',
        values: runs.priced,
        baseline: { label: 'the same run recording no usage', values: runs.without },
        goal: { kind: 'ratio', max: 1.02, text: '<= 1.02x (within noise)' },
      });
      report.add({
        id: 'usage-recording-noise',
        label: 'runtime + SQLite per turn, the baseline run again (the noise)',
        unit: 'ms',
        values: runs.again,
        baseline: { label: 'the same run recording no usage', values: runs.without },
        goal: { kind: 'info', text: 'how far the same run strays from itself' },
      });
      report.add({
        id: 'usage-recording-cpu',
        label: 'CPU of this process per turn, usage recorded and priced',
        unit: 'ms',
        values: cpu.priced.cpu,
        baseline: { label: 'the same run recording no usage', values: cpu.without.cpu },
        goal: { kind: 'ratio', max: 1.02, text: '<= 1.02x (within noise)' },
      });
      report.add({
        id: 'usage-recording-cpu-noise',
        label: 'CPU of this process per turn, the baseline run again (the noise)',
        unit: 'ms',
        values: cpu.again.cpu,
        baseline: { label: 'the same run recording no usage', values: cpu.without.cpu },
        goal: { kind: 'info', text: 'how far the same run strays from itself' },
      });
      report.finish();
    } finally {
      history.cleanup();
    }
  });
});
