import { mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHostProcess, type HostProcess } from './import-hostile/host-process';
import { payloads, type Payload } from './import-hostile/payloads';
import { BenchReport } from './harness';

/**
 * Imports through the WebSocket `sessions.importData` channel of the real web host (a child
 * process running the build): hostile payloads (deep nesting, unclosed JSON) and a 100k-message
 * export. Meanwhile a probe on its own thread calls `app.info` every 20 ms and samples the host's
 * resident memory. Figures sit next to the same host's idle baseline; goals: peak RSS < 300 MB,
 * slowest answer < 100 ms. Printed and written to test-artifacts/bench/, never asserted on time.
 */
const REPETITIONS = 3;
const PING_MS = 20;
const IDLE_MS = 1000;
const RSS_GOAL_MB = 300;
const LATENCY_GOAL_MS = 100;
const PROBE = new URL('./import-hostile/probe.mjs', import.meta.url);
const ARTIFACT = fileURLToPath(new URL('../../test-artifacts/bench/import-hostile.json', import.meta.url));

interface ProbeReport {
  latencies: number[];
  waiting: number[];
  rssMb: number[];
}

interface RunFigures {
  seconds: number;
  outcome: string;
  idleRssMb: number;
  peakRssMb: number;
  sampledMaxRssMb: number;
  idle: Latency;
  during: Latency;
}

interface Latency {
  p50: number;
  p95: number;
  max: number;
  answered: number;
}

function latency(report: ProbeReport): Latency {
  const all = [...report.latencies, ...report.waiting].sort((a, b) => a - b);
  const at = (p: number) => all[Math.min(all.length - 1, Math.floor(p * all.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), max: all.at(-1) ?? NaN, answered: report.latencies.length };
}

function startProbe(host: HostProcess): { worker: Worker; ask(type: 'mark' | 'stop'): Promise<ProbeReport> } {
  const worker = new Worker(PROBE, {
    workerData: {
      wsUrl: host.wsUrl,
      origin: host.origin,
      pid: host.pid,
      intervalMs: PING_MS,
      channel: 'app.info',
    },
  });
  return {
    worker,
    async ask(type) {
      const reply = new Promise<ProbeReport>((resolve) => {
        const listener = (message: { type: string } & ProbeReport) => {
          if (message.type !== 'marked' && message.type !== 'result') return;
          worker.off('message', listener);
          resolve(message);
        };
        worker.on('message', listener);
      });
      worker.postMessage({ type });
      return reply;
    },
  };
}

async function importOver(host: HostProcess, payload: Payload): Promise<unknown> {
  const socket = new WebSocket(host.wsUrl, { origin: host.origin, maxPayload: 0 });
  await once(socket, 'open');
  const answer = new Promise<unknown>((resolve) => {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id: number; result: unknown };
      if (frame.type === 'result' && frame.id === 1) resolve(frame.result);
    });
  });
  const call = { fileName: payload.fileName, content: payload.content };
  socket.send(JSON.stringify({ type: 'call', id: 1, channel: 'sessions.importData', payload: call }));
  const result = await answer;
  socket.close();
  return result;
}

async function run(payload: Payload): Promise<RunFigures> {
  const host = await startHostProcess();
  try {
    const probe = startProbe(host);
    await once(probe.worker, 'message');
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = await probe.ask('mark');
    const idleRssMb = host.residentMb();
    const start = performance.now();
    const result = (await importOver(host, payload)) as {
      ok: boolean;
      value?: { messageCount: number };
      error?: { code: string; message: string };
    };
    const seconds = (performance.now() - start) / 1000;
    const during = await probe.ask('stop');
    await probe.worker.terminate();
    const peakRssMb = host.peakMb();
    if (payload.expect.ok) {
      expect(result.ok).toBe(true);
      expect(result.value?.messageCount).toBe(payload.expect.messageCount);
    } else {
      expect(result.ok).toBe(false);
      // A hostile file is refused with a typed code: malformed (invalid-input) or over a limit (too-large).
      expect(payload.expect.codes).toContain(result.error?.code);
    }
    const outcome = result.ok
      ? `imported ${result.value?.messageCount} messages`
      : (result.error?.message ?? '');
    return {
      seconds,
      outcome,
      idleRssMb,
      peakRssMb,
      sampledMaxRssMb: Math.max(...during.rssMb),
      idle: latency(idle),
      during: latency(during),
    };
  } finally {
    await host.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: number[], digits = 0) =>
  `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]`;

it('hostile and 100k-message imports over the WebSocket: host memory and responsiveness', async () => {
  const results: Array<{ payload: string; bytes: number; runs: RunFigures[] }> = [];
  for (const payload of payloads()) {
    const runs: RunFigures[] = [];
    for (let i = 0; i < REPETITIONS; i++) runs.push(await run(payload));
    results.push({ payload: payload.name, bytes: payload.content.length, runs });
  }

  const rows: Array<[string, string, string]> = [];
  for (const { payload, runs } of results) {
    const peak = runs.map((r) => r.peakRssMb);
    const max = runs.map((r) => r.during.max);
    rows.push(
      [
        `${payload}: import time`,
        `${spread(
          runs.map((r) => r.seconds),
          2,
        )} s`,
        '',
      ],
      [
        `${payload}: peak RSS (VmHWM)`,
        `${spread(peak)} MB`,
        `< ${RSS_GOAL_MB} MB ${Math.max(...peak) < RSS_GOAL_MB ? 'met' : 'MISSED'}`,
      ],
      [`${payload}: idle RSS before (baseline)`, `${spread(runs.map((r) => r.idleRssMb))} MB`, ''],
      [
        `${payload}: app.info p50 / p95 during`,
        `${spread(
          runs.map((r) => r.during.p50),
          1,
        )} / ${spread(
          runs.map((r) => r.during.p95),
          1,
        )} ms`,
        '',
      ],
      [
        `${payload}: app.info max during`,
        `${spread(max, 1)} ms`,
        `< ${LATENCY_GOAL_MS} ms ${Math.max(...max) < LATENCY_GOAL_MS ? 'met' : 'MISSED'}`,
      ],
      [
        `${payload}: app.info p50 / max idle (baseline)`,
        `${spread(
          runs.map((r) => r.idle.p50),
          1,
        )} / ${spread(
          runs.map((r) => r.idle.max),
          1,
        )} ms`,
        '',
      ],
      [`${payload}: outcome`, runs[0]?.outcome.slice(0, 90) ?? '', ''],
    );
  }
  const width = Math.max(...rows.map(([figure]) => figure.length));
  console.log(
    `\nImports over sessions.importData (median [min-max] of ${REPETITIONS} runs, a fresh host each; probe every ${PING_MS} ms)\n` +
      rows
        .map(([figure, value, goal]) => `  ${figure.padEnd(width)}  ${value.padEnd(34)}  ${goal}`)
        .join('\n'),
  );
  mkdirSync(fileURLToPath(new URL('.', `file://${ARTIFACT}`)), { recursive: true });
  writeFileSync(
    ARTIFACT,
    JSON.stringify(
      { at: new Date().toISOString(), goals: { RSS_GOAL_MB, LATENCY_GOAL_MS }, results },
      null,
      2,
    ),
  );
  const report = new BenchReport(
    'import-hostile-goals',
    'Imports over sessions.importData (built web host)',
    {
      pingMs: PING_MS,
    },
  );
  for (const { payload, runs } of results) {
    report.add({
      id: `${payload}-peak-rss`,
      label: `${payload}: peak RSS of the host`,
      unit: 'MB',
      values: runs.map((r) => r.peakRssMb),
      baseline: { label: 'idle RSS before', values: runs.map((r) => r.idleRssMb) },
      goal: { kind: 'value', max: RSS_GOAL_MB, text: `< ${RSS_GOAL_MB} MB` },
    });
    report.add({
      id: `${payload}-slowest-answer`,
      label: `${payload}: slowest app.info answer during`,
      unit: 'ms',
      values: runs.map((r) => r.during.max),
      baseline: { label: 'slowest when idle', values: runs.map((r) => r.idle.max) },
      goal: { kind: 'value', max: LATENCY_GOAL_MS, text: `< ${LATENCY_GOAL_MS} ms` },
    });
  }
  report.finish();
});
