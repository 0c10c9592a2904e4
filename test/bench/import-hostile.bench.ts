import { mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHostProcess, type HostProcess } from './import-hostile/host-process';
import { payloads, type Payload } from './import-hostile/payloads';
import { IMPORT_UPLOAD_PATH } from '@shared/contract';
import { BenchReport, benchReps } from './harness';

/**
 * Imports into the real web host (a child process running the build), the way the page sends
 * them: hostile payloads (deep nesting, unclosed JSON) and a 100k-message export through the
 * streamed import upload (`POST IMPORT_UPLOAD_PATH`), and as WebSocket baselines a 10 MB
 * `sessions.importData` frame refused by validation and the export as one frame (which the
 * socket closes on). Meanwhile a probe on its own thread calls `app.info` every 20 ms and samples
 * the host's resident memory. Figures sit next to the same host's idle baseline; goals: peak RSS
 * < 300 MB, slowest answer < 100 ms. Printed and written to test-artifacts/bench/, never
 * asserted on time.
 */
const REPETITIONS = benchReps();
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
  /** Uploads only: from the first byte sent to the last (before the import runs). */
  upload: { seconds: number; peakRssMb: number; latency: Latency } | null;
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

type Outcome = { ok: boolean; value?: { messageCount: number }; error?: { code: string; message: string } };

/** One `sessions.importData` call as a WebSocket frame: its answer, or the code the socket closed with. */
async function importOverSocket(
  host: HostProcess,
  payload: Payload,
): Promise<Outcome | { closedWith: number }> {
  const socket = new WebSocket(host.wsUrl, { origin: host.origin, maxPayload: 0 });
  await once(socket, 'open');
  const answer = new Promise<Outcome | { closedWith: number }>((resolve) => {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id: number; result: Outcome };
      if (frame.type === 'result' && frame.id === 1) resolve(frame.result);
    });
    socket.on('close', (code) => resolve({ closedWith: code }));
  });
  const call = { fileName: payload.fileName, content: payload.content };
  socket.send(JSON.stringify({ type: 'call', id: 1, channel: 'sessions.importData', payload: call }));
  const result = await answer;
  socket.close();
  return result;
}

/**
 * The file sent as the page sends it: the body of a POST to the import upload. `onSent` runs
 * once the whole body is handed to the socket (the host then holds the file; the import starts).
 */
async function importByUpload(host: HostProcess, payload: Payload, onSent: () => void): Promise<Outcome> {
  const body = Buffer.from(payload.content);
  const query = new URLSearchParams({ token: host.token, fileName: payload.fileName });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.port,
        method: 'POST',
        path: `${IMPORT_UPLOAD_PATH}?${query}`,
        headers: {
          origin: host.origin,
          'content-type': 'application/octet-stream',
          'content-length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text) as Outcome));
      },
    );
    req.on('error', reject);
    req.end(body, onSent);
  });
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
    // Set from the upload's callback, hence the widened initial type.
    let uploaded = null as Promise<NonNullable<RunFigures['upload']> & { report: ProbeReport }> | null;
    const onSent = () => {
      const seconds = (performance.now() - start) / 1000;
      uploaded = probe
        .ask('mark')
        .then((report) => ({ report, seconds, peakRssMb: host.peakMb(), latency: latency(report) }));
    };
    const result =
      payload.via === 'upload'
        ? await importByUpload(host, payload, onSent)
        : await importOverSocket(host, payload);
    const seconds = (performance.now() - start) / 1000;
    const upload = uploaded ? await uploaded : null;
    const rest = await probe.ask('stop');
    await probe.worker.terminate();
    const peakRssMb = host.peakMb();
    const during: ProbeReport = upload
      ? {
          latencies: [...upload.report.latencies, ...rest.latencies],
          waiting: [...upload.report.waiting, ...rest.waiting],
          rssMb: [...upload.report.rssMb, ...rest.rssMb],
        }
      : rest;
    const expected = payload.expect;
    if ('closedWith' in expected || 'closedWith' in result) {
      expect('closedWith' in expected && 'closedWith' in result).toBe(true);
      if ('closedWith' in expected && 'closedWith' in result)
        expect(expected.closedWith).toContain(result.closedWith);
    } else if (expected.ok) {
      expect(result.ok).toBe(true);
      expect(result.value?.messageCount).toBe(expected.messageCount);
    } else {
      expect(result.ok).toBe(false);
      // A hostile file is refused with a typed code: malformed (invalid-input) or over a limit (too-large).
      expect(expected.codes).toContain(result.error?.code);
    }
    const outcome =
      'closedWith' in result
        ? `socket closed (${result.closedWith})`
        : result.ok
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
      upload: upload
        ? { seconds: upload.seconds, peakRssMb: upload.peakRssMb, latency: upload.latency }
        : null,
    };
  } finally {
    await host.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: number[], digits = 0) =>
  `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]`;

it('hostile and 100k-message imports uploaded to the web host: host memory and responsiveness', async () => {
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
    const uploads = runs.flatMap((r) => (r.upload ? [r.upload] : []));
    if (uploads.length === 0) continue;
    const uploadPeak = uploads.map((u) => u.peakRssMb);
    const uploadMax = uploads.map((u) => u.latency.max);
    rows.push(
      [
        `${payload}: upload alone, time`,
        `${spread(
          uploads.map((u) => u.seconds),
          2,
        )} s`,
        '',
      ],
      [
        `${payload}: upload alone, peak RSS`,
        `${spread(uploadPeak)} MB`,
        `< ${RSS_GOAL_MB} MB ${Math.max(...uploadPeak) < RSS_GOAL_MB ? 'met' : 'MISSED'}`,
      ],
      [
        `${payload}: upload alone, app.info max`,
        `${spread(uploadMax, 1)} ms`,
        `< ${LATENCY_GOAL_MS} ms ${Math.max(...uploadMax) < LATENCY_GOAL_MS ? 'met' : 'MISSED'}`,
      ],
    );
  }
  const width = Math.max(...rows.map(([figure]) => figure.length));
  console.log(
    `\nImports into the web host, uploaded or as a WebSocket frame (median [min-max] of ${REPETITIONS} runs, a fresh host each; probe every ${PING_MS} ms)\n` +
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
    'Imports into the built web host (upload; WebSocket baselines)',
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
    const uploads = runs.flatMap((r) => (r.upload ? [r.upload] : []));
    if (uploads.length !== runs.length) continue;
    report.add({
      id: `${payload}-upload-peak-rss`,
      label: `${payload}: peak RSS of the host while receiving the upload`,
      unit: 'MB',
      values: uploads.map((u) => u.peakRssMb),
      baseline: { label: 'idle RSS before', values: runs.map((r) => r.idleRssMb) },
      goal: { kind: 'value', max: RSS_GOAL_MB, text: `< ${RSS_GOAL_MB} MB` },
    });
    report.add({
      id: `${payload}-upload-slowest-answer`,
      label: `${payload}: slowest app.info answer while receiving the upload`,
      unit: 'ms',
      values: uploads.map((u) => u.latency.max),
      baseline: { label: 'slowest when idle', values: runs.map((r) => r.idle.max) },
      goal: { kind: 'value', max: LATENCY_GOAL_MS, text: `< ${LATENCY_GOAL_MS} ms` },
    });
  }
  report.finish();
});
