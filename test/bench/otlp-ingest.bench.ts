import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CHROMIUM, ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { openApp } from '../e2e/session-helpers';
import { decodeTraceRequest } from '../../src-main/ingest/otlp-codec';
import { readOtlpTraces } from '../../src-main/history/import/otlp/read-otlp';
import { SessionMapper } from '../../src-main/history/import/otlp/session-mapper';
import { SpanIndex } from '../../src-main/history/import/otlp/span-index';
import { liveSpanLimits } from '../../src-main/history/import/otlp/span-limits';
import { openTempHistory } from '../helpers/temp-store';
import { chatBatch, postTraces } from './otlp-ingest/traffic';
import { Watcher } from './otlp-ingest/watcher';

/**
 * OpenTelemetry ingest figures against `fleetscope serve` from the build (a child process):
 * - spans per second an exporter gets through while a session view watches the growing session
 *   (a WebSocket client subscribed to it, as an open tab is), beside a bare HTTP sink taking the
 *   same requests (the transport floor);
 * - the lag from an export leaving to its message reaching the watching client as run.events,
 *   beside an app.info round trip on the same socket;
 * - in Chromium, with the session view open, the lag from export to the message painted.
 * Three interleaved repetitions each, with their spread. Printed and written to
 * test-artifacts/bench/otlp-ingest.json; never asserted on time.
 */
const REPETITIONS = 3;
const BATCHES = 40;
const BATCH_SPANS = 100;
const LAG_SAMPLES = 25;
const LAG_PACE_MS = 40;
const PAINT_SAMPLES = 15;
const TOKEN = 'bench-otlp-token-0123456789abcdef01234567';
const ARTIFACT = fileURLToPath(new URL('../../test-artifacts/bench/otlp-ingest.json', import.meta.url));
const SINK = fileURLToPath(new URL('./otlp-ingest/sink.mjs', import.meta.url));

/**
 * Runs in the page: for every marker text that appears, the time (Date.now, the clock the
 * sender reads too) of the first frame after the DOM showed it, i.e. when it was painted.
 */
const PAINT_PROBE = `(() => {
  const marks = (window.__marks = {});
  new MutationObserver(() => {
    for (const match of document.body.innerText.matchAll(/paint-\\d+-p\\d+/g)) {
      const marker = match[0];
      if (marker in marks) continue;
      marks[marker] = -1;
      requestAnimationFrame(() => setTimeout(() => (marks[marker] = Date.now()), 0));
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], p: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? NaN;
const spread = (values: number[]) => ({
  median: at(values, 0.5),
  min: Math.min(...values),
  max: Math.max(...values),
});
const f0 = (n: number) => n.toFixed(0);

async function until<T>(read: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(2);
  }
}

async function startSink(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, [SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(String(chunk));
      if (match) resolve(Number(match[1]));
    }),
  );
  return { port, stop: () => child.kill('SIGTERM') };
}

describe('OpenTelemetry ingest with the UI open', () => {
  const temp = makeTempDir('fleetscope-bench-otlp-');
  let host: HostProcess;
  let sink: { port: number; stop(): void };
  let watcher: Watcher;
  let trace = 0;
  const figures: Record<string, unknown> = {};
  const lines: string[] = [];

  /**
   * A new conversation with one span, watched by the client (as an open session view watches
   * its session); resolves with its session id (the newest trace session).
   */
  async function openConversation(name: string): Promise<string> {
    const first = chatBatch({
      conversation: name,
      trace: ++trace,
      firstSpan: 0,
      count: 1,
      startMs: Date.now() - 60_000,
      marker: `${name}-first`,
    });
    await postTraces(host.port, TOKEN, first);
    const list = await watcher.call<{ items: Array<{ id: string; source: string; createdAt: number }> }>(
      'sessions.list',
      {},
    );
    const newest = list.items
      .filter((item) => item.source === 'otlp')
      .sort((a, b) => b.createdAt - a.createdAt)[0];
    if (!newest) throw new Error('no trace session');
    await watcher.call('sessions.watch', { ids: [newest.id] });
    return newest.id;
  }

  beforeAll(async () => {
    ensureBuilt();
    const dataDir = join(temp.dir, 'data');
    host = await spawnHost(dataDir, { token: TOKEN });
    sink = await startSink();
    watcher = await Watcher.connect(host.port, TOKEN);
  });

  afterAll(async () => {
    console.log(`\nOpenTelemetry ingest (fleetscope serve from the build)\n${lines.join('\n')}`);
    mkdirSync(dirname(ARTIFACT), { recursive: true });
    writeFileSync(ARTIFACT, `${JSON.stringify(figures, null, 2)}\n`);
    watcher?.close();
    sink?.stop();
    await host?.stop();
    temp.remove();
  });

  it(`spans per second: ${BATCHES} exports of ${BATCH_SPANS} spans into a watched session, beside a bare sink`, async () => {
    const received: number[] = [];
    const delivered: number[] = [];
    const bare: number[] = [];
    for (let rep = 0; rep < REPETITIONS; rep++) {
      const conversation = `throughput-${rep}`;
      await openConversation(conversation);
      const startMs = Date.now() - 50_000;
      const batches = Array.from({ length: BATCHES }, (_, b) =>
        chatBatch({
          conversation,
          trace: trace,
          firstSpan: 1 + b * BATCH_SPANS,
          count: BATCH_SPANS,
          startMs,
          marker: b === BATCHES - 1 ? `${conversation}-last` : undefined,
        }),
      );
      const spans = BATCHES * BATCH_SPANS;
      const wallStart = Date.now();
      let started = performance.now();
      for (const body of batches) {
        const status = await postTraces(host.port, TOKEN, body);
        if (status !== 200) throw new Error(`receiver answered ${status}`);
      }
      const answered = performance.now() - started;
      const lastSeen = await until(() => watcher.seen.get(`${conversation}-last`), 60_000);
      received.push(spans / (answered / 1000));
      delivered.push(spans / ((lastSeen - wallStart) / 1000));
      started = performance.now();
      for (const body of batches) await postTraces(sink.port, TOKEN, body);
      bare.push(spans / ((performance.now() - started) / 1000));
    }
    const r = spread(received);
    const d = spread(delivered);
    const b = spread(bare);
    figures.throughput = {
      spansPerRepetition: BATCHES * BATCH_SPANS,
      batchSpans: BATCH_SPANS,
      receiver: r,
      deliveredToView: d,
      bareSink: b,
    };
    lines.push(
      `  spans/s answered by the receiver (session watched): median ${f0(r.median)} (min ${f0(r.min)}, max ${f0(r.max)})`,
      `  spans/s until the last message reached the watching client: median ${f0(d.median)} (min ${f0(d.min)}, max ${f0(d.max)})`,
      `  spans/s into a bare HTTP sink (baseline, same requests): median ${f0(b.median)} (min ${f0(b.min)}, max ${f0(b.max)}); receiver at ${(r.median / b.median).toFixed(2)}x the floor`,
    );
  });

  it(`lag from export to run.events at the watching client (${LAG_SAMPLES} single-span exports), beside app.info round trips`, async () => {
    const lags: number[][] = [];
    const trips: number[][] = [];
    for (let rep = 0; rep < REPETITIONS; rep++) {
      const conversation = `lag-${rep}`;
      await openConversation(conversation);
      const startMs = Date.now() - 40_000;
      const repLags: number[] = [];
      const repTrips: number[] = [];
      for (let i = 0; i < LAG_SAMPLES; i++) {
        const marker = `${conversation}-m${i}`;
        const body = chatBatch({ conversation, trace, firstSpan: 10 + i, count: 1, startMs, marker });
        const sent = Date.now();
        await postTraces(host.port, TOKEN, body);
        repLags.push((await until(() => watcher.seen.get(marker), 10_000)) - sent);
        const asked = performance.now();
        await watcher.call('app.info', {});
        repTrips.push(performance.now() - asked);
        await sleep(LAG_PACE_MS);
      }
      lags.push(repLags);
      trips.push(repTrips);
    }
    const medians = lags.map((rep) => at(rep, 0.5));
    const p95s = lags.map((rep) => at(rep, 0.95));
    const tripMedians = trips.map((rep) => at(rep, 0.5));
    figures.frameLag = {
      samples: LAG_SAMPLES,
      medianPerRepetition: medians,
      p95PerRepetition: p95s,
      appInfoMedianPerRepetition: tripMedians,
    };
    lines.push(
      `  export -> run.events frame: median ${medians.map(f0).join(' / ')} ms, p95 ${p95s.map(f0).join(' / ')} ms (3 repetitions)`,
      `  app.info round trip on the same socket (baseline): median ${tripMedians.map((m) => m.toFixed(1)).join(' / ')} ms`,
    );
  });

  it('where the time goes, in this process: µs per span for each step of the same exports', () => {
    const steps = {
      decode: [] as number[],
      read: [] as number[],
      place: [] as number[],
      map: [] as number[],
      store: [] as number[],
    };
    const spans = BATCHES * BATCH_SPANS;
    for (let rep = 0; rep < REPETITIONS; rep++) {
      const history = openTempHistory();
      try {
        const startMs = Date.now() - 50_000;
        const bodies = Array.from({ length: BATCHES }, (_, b) =>
          chatBatch({
            conversation: `steps-${rep}`,
            trace: 1,
            firstSpan: b * BATCH_SPANS,
            count: BATCH_SPANS,
            startMs,
          }),
        );
        const index = new SpanIndex({ holdMs: 1_500, retainMs: 600_000, maxSpans: 200_000 });
        const mapper = new SessionMapper(startMs);
        const writing = history.store.beginImport({
          title: 'bench',
          task: '',
          fleetName: 'bench',
          source: 'otlp',
          createdAt: Math.round(startMs),
          tags: [],
        });
        const total = { decode: 0, read: 0, place: 0, map: 0, store: 0 };
        for (const body of bodies) {
          let t = performance.now();
          const decoded = decodeTraceRequest(body);
          total.decode += performance.now() - t;
          t = performance.now();
          const batch = readOtlpTraces(decoded, liveSpanLimits(Date.now()));
          total.read += performance.now() - t;
          t = performance.now();
          index.add(batch.spans, Date.now());
          const placed = [...index.drain(Date.now()).values()].flat();
          total.place += performance.now() - t;
          t = performance.now();
          const events = mapper.map(placed);
          total.map += performance.now() - t;
          t = performance.now();
          writing.append(events);
          total.store += performance.now() - t;
        }
        writing.finish();
        for (const key of Object.keys(total) as Array<keyof typeof total>)
          steps[key].push((total[key] / spans) * 1000);
      } finally {
        history.cleanup();
      }
    }
    figures.steps = Object.fromEntries(Object.entries(steps).map(([key, values]) => [key, spread(values)]));
    lines.push(
      `  µs per span in process (median of 3): ${Object.entries(steps)
        .map(([key, values]) => `${key} ${spread(values).median.toFixed(0)}`)
        .join(', ')} (store: the history store writing the session's events, as for a run of our own)`,
    );
  });

  it(`lag from export to paint with the session view open in Chromium (${PAINT_SAMPLES} exports)`, async () => {
    if (!existsSync(CHROMIUM)) {
      lines.push(`  export -> paint: not measured (no Chromium at ${CHROMIUM})`);
      return;
    }
    const browser = await launchBrowser();
    try {
      const page: Page = await browser.context.newPage();
      await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
      await openApp(page, host.url);
      const paints: number[][] = [];
      const frames: number[][] = [];
      for (let rep = 0; rep < REPETITIONS; rep++) {
        const conversation = `paint-${rep}`;
        const id = await openConversation(conversation);
        await page.evaluate(
          `window.location.hash = ${JSON.stringify(`#/sessions/${encodeURIComponent(id)}`)}`,
        );
        await page.getByText(`${conversation}-first`).first().waitFor({ timeout: 30_000 });
        await page.evaluate(PAINT_PROBE);
        const startMs = Date.now() - 30_000;
        const repPaints: number[] = [];
        const repFrames: number[] = [];
        for (let i = 0; i < PAINT_SAMPLES; i++) {
          const marker = `${conversation}-p${i}`;
          const body = chatBatch({ conversation, trace, firstSpan: 50 + i, count: 1, startMs, marker });
          const sent = Date.now();
          await postTraces(host.port, TOKEN, body);
          const painted = await page.waitForFunction(
            (m: string) => {
              const marks = (globalThis as unknown as { __marks?: Record<string, number> }).__marks ?? {};
              const value = marks[m] ?? 0;
              return value > 0 ? value : false;
            },
            marker,
            { timeout: 15_000, polling: 5 },
          );
          repPaints.push(((await painted.jsonValue()) as number) - sent);
          repFrames.push((watcher.seen.get(marker) ?? NaN) - sent);
          await sleep(200);
        }
        paints.push(repPaints);
        frames.push(repFrames);
      }
      const paintMedians = paints.map((rep) => at(rep, 0.5));
      const frameMedians = frames.map((rep) => at(rep, 0.5));
      figures.paintLag = {
        samples: PAINT_SAMPLES,
        paintMedianPerRepetition: paintMedians,
        paintP95PerRepetition: paints.map((rep) => at(rep, 0.95)),
        frameMedianPerRepetition: frameMedians,
      };
      lines.push(
        `  export -> painted in the open session view: median ${paintMedians.map(f0).join(' / ')} ms, p95 ${paints.map((rep) => f0(at(rep, 0.95))).join(' / ')} ms`,
        `  same exports -> run.events at the Node client (baseline, same run): median ${frameMedians.map(f0).join(' / ')} ms`,
      );
    } finally {
      await browser.close();
    }
  });
});
