import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fleetSchema, type FleetInput, type RunEvent } from '@shared/domain';
import { MemorySink, startRun, type EventSink } from '../../src-main/orchestrator';
import { openHistory } from '../../src-main/history';
import { runFleet } from '../../src-main/api';
import { checked } from '../helpers/fleet-builders';
import { BenchReport, benchReps, benchSize, interleave, percentile } from './harness';
import { roundRobinTeam, useStubChild } from './stub/stub-suite';
import { measureStoreWrites } from './store-writes';
import { WithoutDerivableEvents } from './what-if-sinks';

/**
 * Orchestration overhead: the peers' scenario (4 LLM agents, round robin, one shared history,
 * TURNS agent turns) against the bench stub in its own process, as
 *   - the app runs it: `runFleet` of the programmatic entry (composition root, run service,
 *     runtime, SQLite store in a fresh data folder; setup included, as a script pays it);
 *   - the runtime into the SQLite store alone (`openHistory` + `startRun`, opening and closing
 *     the store included);
 *   - the runtime into the in-memory sink (the runtime's own cost);
 * beside the baseline, a bare `openai` SDK loop sending the very same request bodies (recorded by
 * the stub in the warm-up run) and reading the same streams. Interleaved repetitions; then one
 * instrumented run counts what the store does per turn. Printed and written as JSON; never asserted
 * on time. FLEETSCOPE_BENCH_TURNS sets the turns (default 1,000).
 */
const TURNS = benchSize('FLEETSCOPE_BENCH_TURNS', 1_000);
const REPS = benchReps();
const TASK = 'Design a small command-line tool that counts words in text files, then review it.';
const MODEL = 'stub-model';

const suite = useStubChild('fleetscope-bench-orchestrator-');
const freshFolder = suite.freshFolder;

const scenario = (): FleetInput => roundRobinTeam(suite.stub.baseUrl, MODEL, TURNS);

async function runtimeInto(sink: EventSink): Promise<void> {
  const handle = startRun({
    ...checked(fleetSchema.parse(scenario())),
    task: TASK,
    sink,
    env: {},
    maxRetries: 0,
  });
  const summary = await handle.done;
  expect(summary.stopReason).toBe('max-messages');
  expect(summary.messageCount).toBe(TURNS + 1);
}

interface Timed {
  ms: number;
  cpuMs: number;
}

/** Wall and CPU time of `work`, after checking the stub saw exactly TURNS chat requests. */
async function timed(work: () => Promise<void>): Promise<Timed> {
  await suite.stub.reset();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  expect((await suite.stub.stats()).requests).toBe(TURNS);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

const variants = {
  app: () =>
    timed(async () => {
      const summary = await runFleet({ fleet: scenario(), task: TASK, dataDir: freshFolder(), env: {} });
      expect(summary.stopReason).toBe('max-messages');
      expect(summary.messageCount).toBe(TURNS + 1);
    }),
  sqlite: () =>
    timed(async () => {
      const history = openHistory(freshFolder(), { recover: false });
      try {
        await runtimeInto(history.store);
      } finally {
        history.close();
      }
    }),
  memory: () => timed(() => runtimeInto(new MemorySink())),
  /** What-if (what-if-sinks.ts): the store without token-delta and agent-status rows. */
  sqliteLean: () =>
    timed(async () => {
      const history = openHistory(freshFolder(), { recover: false });
      try {
        await runtimeInto(new WithoutDerivableEvents(history.store));
      } finally {
        history.close();
      }
    }),
  bare: (bodies: readonly OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming[]) =>
    timed(async () => {
      const client = new OpenAI({
        baseURL: suite.stub.baseUrl,
        apiKey: 'bench',
        maxRetries: 0,
        logLevel: 'off',
      });
      let characters = 0;
      for (const body of bodies) {
        const stream = await client.chat.completions.create({ ...body, stream: true });
        for await (const chunk of stream) characters += chunk.choices[0]?.delta?.content?.length ?? 0;
      }
      expect(characters).toBeGreaterThan(0);
    }),
};

describe('orchestrator overhead', () => {
  it(`4-agent round robin, ${TURNS} turns: app, runtime + SQLite, runtime + memory vs a bare openai SDK loop`, async () => {
    // Warm-up (JIT, connection pools, the stub's parser) that also records the request bodies.
    const bodiesFile = join(suite.dir, 'bodies.json');
    await suite.stub.record();
    await variants.memory();
    await suite.stub.dump(bodiesFile);
    const bodies = JSON.parse(
      readFileSync(bodiesFile, 'utf8'),
    ) as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming[];
    expect(bodies).toHaveLength(TURNS);
    await variants.bare(bodies);
    await variants.app();

    await suite.stub.reset();
    await variants.bare(bodies);
    const bareRequestBytes = (await suite.stub.stats()).bodyBytes;
    await variants.app();
    const appRequestBytes = (await suite.stub.stats()).bodyBytes;

    const cpu: Record<string, number[]> = { app: [], sqlite: [], memory: [], bare: [] };
    const cpuOf = (name: keyof typeof cpu, variant: () => Promise<Timed>) => async (): Promise<number> => {
      const { ms, cpuMs } = await variant();
      cpu[name]!.push(cpuMs);
      return ms;
    };
    const wall = await interleave(REPS, {
      bare: cpuOf('bare', () => variants.bare(bodies)),
      app: cpuOf('app', variants.app),
      sqlite: cpuOf('sqlite', variants.sqlite),
      memory: cpuOf('memory', variants.memory),
      sqliteLean: async () => (await variants.sqliteLean()).ms,
    });

    const writes = await measureStoreWrites(freshFolder(), (store) => runtimeInto(store));

    const perTurn = (values: number[]) => values.map((value) => value / TURNS);
    const bare = { label: 'bare openai SDK loop, same bodies', values: perTurn(wall.bare) };
    const bareCpu = { label: 'bare loop', values: perTurn(cpu.bare!) };
    const report = new BenchReport('orchestrator', `Orchestration, ${TURNS} turns, 4 agents round robin`, {
      turns: TURNS,
      reps: REPS,
      stub: 'test/helpers/openai-suite.stub.ts in a child process, 8 SSE chunks per reply',
      requestBytes: { bare: bareRequestBytes, app: appRequestBytes },
      storeWrites: writes,
    });
    report.add({
      id: 'app-vs-bare',
      label: 'runFleet (app, SQLite store) per turn',
      unit: 'ms',
      values: perTurn(wall.app),
      baseline: bare,
      goal: { kind: 'ratio', max: 1.1, text: '<= 1.1x bare' },
      note: 'the programmatic entry, as the peer harness drives it; includes createApp and close',
    });
    report.add({
      id: 'sqlite-vs-bare',
      label: 'runtime + SQLite store per turn',
      unit: 'ms',
      values: perTurn(wall.sqlite),
      baseline: bare,
      goal: { kind: 'ratio', max: 1.1, text: '<= 1.1x bare' },
    });
    report.add({
      id: 'memory-vs-bare',
      label: 'runtime + MemorySink per turn',
      unit: 'ms',
      values: perTurn(wall.memory),
      baseline: bare,
      goal: { kind: 'info', text: 'the runtime alone' },
    });
    report.add({
      id: 'sqlite-vs-memory',
      label: 'runtime + SQLite vs + MemorySink per turn',
      unit: 'ms',
      values: perTurn(wall.sqlite),
      baseline: { label: 'runtime + MemorySink', values: perTurn(wall.memory) },
      goal: { kind: 'info', text: 'what the store costs' },
    });
    const memoryBaseline = { label: 'runtime + MemorySink', values: perTurn(wall.memory) };
    report.add({
      id: 'what-if-lean-vs-memory',
      label: 'what-if: SQLite without delta and status rows, per turn',
      unit: 'ms',
      values: perTurn(wall.sqliteLean),
      baseline: memoryBaseline,
      goal: { kind: 'info', text: 'the next step, priced' },
      note: 'test/bench/what-if-sinks.ts drops message.delta and agent.status before the store (4 of 8 events a turn)',
    });
    report.add({
      id: 'what-if-lean-vs-bare',
      label: 'what-if: SQLite without delta and status rows, against the bare loop, per turn',
      unit: 'ms',
      values: perTurn(wall.sqliteLean),
      baseline: bare,
      goal: { kind: 'ratio', max: 1.1, text: '<= 1.1x bare' },
      note: 'not what the app does: what the store would cost without those rows',
    });
    const cpuFigures = [
      { id: 'app-cpu', label: 'runFleet', values: cpu.app! },
      { id: 'sqlite-cpu', label: 'runtime + SQLite', values: cpu.sqlite! },
      { id: 'memory-cpu', label: 'runtime + MemorySink', values: cpu.memory! },
    ];
    for (const { id, label, values } of cpuFigures) {
      report.add({
        id,
        label: `${label} client CPU per turn`,
        unit: 'ms',
        values: perTurn(values),
        baseline: bareCpu,
        goal: { kind: 'info', text: 'CPU of this process' },
      });
    }
    report.finish();
    console.log(
      [
        `request body bytes per turn: bare ${(bareRequestBytes / TURNS).toFixed(0)}, app ${(appRequestBytes / TURNS).toFixed(0)} (same bodies replayed)`,
        `store writes per turn (one instrumented runtime + SQLite run of ${TURNS} turns):`,
        `  transactions ${writes.perTurn.transactions.toFixed(2)} (group commits), statement runs ${writes.perTurn.statementRuns.toFixed(1)}, events ${writes.perTurn.events.toFixed(1)}`,
        `  events per turn by kind: ${Object.entries(writes.perTurn.eventsByKind)
          .map(([kind, count]) => `${kind} ${count.toFixed(2)}`)
          .join(', ')}`,
        `  store ${(writes.storeBytes / 1024).toFixed(0)} KB for ${(writes.textBytes / 1024).toFixed(0)} KB of message text (${(writes.storeBytes / writes.textBytes).toFixed(1)}x); by table: ${writes.tables
          .map((table) => `${table.name} ${(table.bytes / 1024).toFixed(0)} KB`)
          .join(', ')}`,
      ].join('\n'),
    );
  });
});

/**
 * Cancel latency: a one-agent run waits on a stalled stub reply (first text already streamed),
 * then `stop()`; timed from stop() to the run's `done` settling. Baseline: the bare SDK's own
 * abort (an AbortController on the same stalled stream) until its loop ends. Printed; no timed
 * assertions (test/main/orchestrator/run-control.test.ts checks that cancelling does not wait).
 */
const CANCEL_RUNS = 30;

describe('cancel latency', () => {
  it(`stop() while a provider request is in flight, ${CANCEL_RUNS} runs, vs the SDK's abort`, async () => {
    await suite.stub.stall(true);
    const single: FleetInput = {
      version: 1,
      name: 'slow',
      agents: [
        { name: 'slow', type: 'llm', provider: { id: 'custom', baseUrl: suite.stub.baseUrl, model: MODEL } },
      ],
      team: { pattern: 'sequential' },
    } as FleetInput;
    const client = new OpenAI({
      baseURL: suite.stub.baseUrl,
      apiKey: 'bench',
      maxRetries: 0,
      logLevel: 'off',
    });
    try {
      const stops = await interleave(REPS, {
        bare: async () => {
          const times: number[] = [];
          for (let index = 0; index < CANCEL_RUNS; index += 1) {
            const abort = new AbortController();
            const stream = await client.chat.completions.create(
              { model: MODEL, messages: [{ role: 'user', content: 'go' }], stream: true },
              { signal: abort.signal },
            );
            let stoppedAt = 0;
            try {
              for await (const chunk of stream) {
                if (chunk.choices[0]?.delta?.content && !stoppedAt) {
                  stoppedAt = performance.now();
                  abort.abort();
                }
              }
            } catch {
              // The abort ends the loop with an error: that is the moment measured.
            }
            times.push(performance.now() - stoppedAt);
          }
          return percentile(times, 0.95);
        },
        runtime: async () => {
          const times: number[] = [];
          for (let index = 0; index < CANCEL_RUNS; index += 1) {
            const handle = startRun({
              ...checked(fleetSchema.parse(single)),
              task: 'go',
              sink: new MemorySink(),
              env: {},
              idleTimeoutMs: 60_000,
              maxRetries: 0,
            });
            await new Promise<void>((resolve) => {
              const stop = handle.onDidEvent((event: RunEvent) => {
                if (event.kind !== 'message.delta') return;
                stop();
                resolve();
              });
            });
            const stoppedAt = performance.now();
            handle.stop();
            const summary = await handle.done;
            times.push(performance.now() - stoppedAt);
            expect(summary.stopReason).toBe('cancelled');
          }
          return percentile(times, 0.95);
        },
      });
      const report = new BenchReport('cancel', `Cancel latency, ${CANCEL_RUNS} stops per repetition`);
      report.add({
        id: 'stop-to-done-p95',
        label: `stop() -> run done, p95 of ${CANCEL_RUNS}`,
        unit: 'ms',
        values: stops.runtime,
        baseline: { label: 'SDK abort -> loop ends, p95', values: stops.bare },
        goal: { kind: 'info', text: 'no goal in the issue' },
      });
      report.finish();
    } finally {
      await suite.stub.stall(false);
    }
  });
});
