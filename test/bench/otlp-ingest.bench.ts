import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { decodeTraceRequest } from '../../src-main/interop/otlp-in/otlp-codec';
import { readOtlpTraces } from '../../src-main/interop/span-mapping/read-otlp';
import { SessionMapper } from '../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../src-main/interop/span-mapping/span-index';
import { liveSpanLimits } from '../../src-main/interop/span-mapping/span-limits';
import { CHROMIUM, ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { openTempHistory } from '../helpers/temp-store';
import { makeTempDir } from '../helpers/temp-dir';
import { openApp } from '../e2e/session-helpers';
import { BenchReport, benchReps, benchSize, interleave, median, percentile } from './harness';
import { chatBatch, postTraces } from './otlp-ingest/traffic';
import { Watcher } from './otlp-ingest/watcher';

/**
 * OpenTelemetry ingest into `fleetscope serve` from the build (a child process), with the UI
 * open: a WebSocket client watching the growing session as an open session view does, and in
 * Chromium the session view itself.
 * - spans per second an exporter gets through, beside a bare HTTP sink taking the same requests;
 * - lag from an export leaving to its message reaching the watching client (run.events), beside
 *   an app.info round trip on the same socket;
 * - lag from an export to its message painted in the open session view, beside the same
 *   exports' run.events lag;
 * - in this process, µs per span to decode, place and map spans, beside the store writing the
 *   events they become (what a run of our own pays).
 * Repetitions interleaved (FLEETSCOPE_BENCH_REPS, default 3); figures printed with their spread
 * and written to test-artifacts/bench/otlp-ingest.json; never asserted on time.
 */
const REPS = benchReps();
const BATCHES = benchSize('FLEETSCOPE_BENCH_OTLP_BATCHES', 40);
const BATCH_SPANS = 100;
const LAG_SAMPLES = 25;
const LAG_PACE_MS = 40;
const PAINT_SAMPLES = 15;
const TOKEN = 'bench-otlp-token-0123456789abcdef01234567';
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
  const report = new BenchReport('otlp-ingest', 'OpenTelemetry ingest (fleetscope serve from the build)', {
    batches: BATCHES,
    batchSpans: BATCH_SPANS,
    lagSamples: LAG_SAMPLES,
    paintSamples: PAINT_SAMPLES,
  });
  let host: HostProcess;
  let sink: { port: number; stop(): void };
  let watcher: Watcher;
  let trace = 0;
  let conversations = 0;

  /**
   * A new conversation with one span, watched by the client (as an open session view watches
   * its session); resolves with its name and session id (the newest trace session).
   */
  async function openConversation(prefix: string): Promise<{ name: string; id: string }> {
    const name = `${prefix}-${conversations++}`;
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
    return { name, id: newest.id };
  }

  function batchesFor(conversation: string, marker: string) {
    const startMs = Date.now() - 50_000;
    return Array.from({ length: BATCHES }, (_, b) =>
      chatBatch({
        conversation,
        trace,
        firstSpan: 1 + b * BATCH_SPANS,
        count: BATCH_SPANS,
        startMs,
        marker: b === BATCHES - 1 ? marker : undefined,
      }),
    );
  }

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'), { token: TOKEN });
    sink = await startSink();
    watcher = await Watcher.connect(host.port, TOKEN);
  });

  afterAll(async () => {
    report.finish();
    watcher?.close();
    sink?.stop();
    await host?.stop();
    temp.remove();
  });

  it(`spans per second, ${BATCHES} exports of ${BATCH_SPANS} spans into a watched session, beside a bare sink`, async () => {
    const spans = BATCHES * BATCH_SPANS;
    const delivered: number[] = [];
    const results = await interleave(REPS, {
      receiver: async () => {
        const { name } = await openConversation('throughput');
        const marker = `${name}-last`;
        const batches = batchesFor(name, marker);
        const wallStart = Date.now();
        const started = performance.now();
        for (const body of batches) {
          const status = await postTraces(host.port, TOKEN, body);
          if (status !== 200) throw new Error(`receiver answered ${status}`);
        }
        const answered = performance.now() - started;
        const lastSeen = await until(() => watcher.seen.get(marker), 60_000);
        delivered.push(spans / ((lastSeen - wallStart) / 1000));
        return spans / (answered / 1000);
      },
      sink: async () => {
        const batches = batchesFor('sink', 'sink-last');
        const started = performance.now();
        for (const body of batches) await postTraces(sink.port, TOKEN, body);
        return spans / ((performance.now() - started) / 1000);
      },
    });
    report.add({
      id: 'spans-per-second',
      label: `spans/s answered, session watched (${BATCHES}×${BATCH_SPANS} spans)`,
      unit: 'spans/s',
      values: results.receiver,
      baseline: { label: 'bare HTTP sink, same requests', values: results.sink },
      goal: { kind: 'info', text: 'the receiver parses, maps and stores; the sink only reads bodies' },
    });
    report.add({
      id: 'spans-per-second-to-view',
      label: 'spans/s until the last message reached the watching client',
      unit: 'spans/s',
      values: delivered,
      baseline: { label: 'bare HTTP sink, same requests', values: results.sink },
      goal: { kind: 'info', text: 'what an open session view keeps up with' },
    });
  });

  it(`lag from export to run.events at the watching client (${LAG_SAMPLES} single-span exports)`, async () => {
    const p95: number[] = [];
    const results = await interleave(REPS, {
      export: async () => {
        const { name } = await openConversation('lag');
        const startMs = Date.now() - 40_000;
        const lags: number[] = [];
        for (let i = 0; i < LAG_SAMPLES; i++) {
          const marker = `${name}-m${i}`;
          const body = chatBatch({ conversation: name, trace, firstSpan: 10 + i, count: 1, startMs, marker });
          const sent = Date.now();
          await postTraces(host.port, TOKEN, body);
          lags.push((await until(() => watcher.seen.get(marker), 10_000)) - sent);
          await sleep(LAG_PACE_MS);
        }
        p95.push(percentile(lags, 0.95));
        return median(lags);
      },
      roundTrip: async () => {
        const trips: number[] = [];
        for (let i = 0; i < LAG_SAMPLES; i++) {
          const asked = performance.now();
          await watcher.call('app.info', {});
          trips.push(performance.now() - asked);
          await sleep(LAG_PACE_MS);
        }
        return median(trips);
      },
    });
    report.add({
      id: 'export-to-frame-ms',
      label: 'export -> run.events at the watching client, median',
      unit: 'ms',
      values: results.export,
      baseline: { label: 'app.info round trip, same socket', values: results.roundTrip },
      goal: { kind: 'info', text: 'one OTLP request, mapping, a store commit and the per-frame batcher' },
      note: `p95 per repetition: ${p95.map((value) => value.toFixed(0)).join(' / ')} ms`,
    });
  });

  it('where the time goes, in this process: µs per span to decode, place and map, beside storing', async () => {
    const spans = BATCHES * BATCH_SPANS;
    const store: number[] = [];
    const results = await interleave(REPS, {
      mapping: () => {
        const history = openTempHistory();
        try {
          const startMs = Date.now() - 50_000;
          const bodies = Array.from({ length: BATCHES }, (_, b) =>
            chatBatch({
              conversation: 'steps',
              trace: 1,
              firstSpan: b * BATCH_SPANS,
              count: BATCH_SPANS,
              startMs,
            }),
          );
          const index = new SpanIndex({ holdMs: 6_000, retainMs: 600_000, maxSpans: 200_000 });
          const mapper = new SessionMapper(startMs);
          const writing = history.store.beginImport({
            title: 'bench',
            task: '',
            fleetName: 'bench',
            source: 'otlp',
            createdAt: Math.round(startMs),
            tags: [],
          });
          let mapping = 0;
          let storing = 0;
          for (const body of bodies) {
            let t = performance.now();
            const batch = readOtlpTraces(decodeTraceRequest(body), liveSpanLimits(Date.now()));
            index.add(batch.spans, Date.now());
            const events = mapper.map([...index.drain(Date.now()).values()].flat());
            mapping += performance.now() - t;
            t = performance.now();
            writing.append(events);
            storing += performance.now() - t;
          }
          writing.finish();
          store.push((storing / spans) * 1000);
          return (mapping / spans) * 1000;
        } finally {
          history.cleanup();
        }
      },
    });
    report.add({
      id: 'mapping-us-per-span',
      label: 'decode + place + map one span (in process)',
      unit: 'µs',
      values: results.mapping,
      baseline: { label: 'the store writing its events', values: store },
      goal: { kind: 'info', text: 'the store write is what a run of our own pays too' },
    });
  });

  it(`lag from export to paint with the session view open in Chromium (${PAINT_SAMPLES} exports)`, async () => {
    if (!existsSync(CHROMIUM)) {
      report.add({
        id: 'export-to-paint-ms',
        label: 'export -> painted in the open session view',
        unit: 'ms',
        values: [],
        note: `not measured: no Chromium at ${CHROMIUM}`,
      });
      return;
    }
    const browser = await launchBrowser();
    try {
      const page: Page = await browser.context.newPage();
      await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
      await openApp(page, host.url);
      const frames: number[] = [];
      const p95: number[] = [];
      const results = await interleave(REPS, {
        paint: async () => {
          const { name, id } = await openConversation('paint');
          await page.evaluate(
            `window.location.hash = ${JSON.stringify(`#/sessions/${encodeURIComponent(id)}`)}`,
          );
          await page.getByText(`${name}-first`).first().waitFor({ timeout: 30_000 });
          await page.evaluate(PAINT_PROBE);
          const startMs = Date.now() - 30_000;
          const paints: number[] = [];
          const frameLags: number[] = [];
          for (let i = 0; i < PAINT_SAMPLES; i++) {
            const marker = `${name}-p${i}`;
            const body = chatBatch({
              conversation: name,
              trace,
              firstSpan: 50 + i,
              count: 1,
              startMs,
              marker,
            });
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
            paints.push(((await painted.jsonValue()) as number) - sent);
            frameLags.push((watcher.seen.get(marker) ?? NaN) - sent);
            await sleep(200);
          }
          frames.push(median(frameLags));
          p95.push(percentile(paints, 0.95));
          return median(paints);
        },
      });
      report.add({
        id: 'export-to-paint-ms',
        label: 'export -> painted in the open session view (Chromium), median',
        unit: 'ms',
        values: results.paint,
        baseline: { label: 'same exports -> run.events at the Node client', values: frames },
        goal: { kind: 'info', text: 'the lag a person watching sees' },
        note: `p95 per repetition: ${p95.map((value) => value.toFixed(0)).join(' / ')} ms`,
      });
    } finally {
      await browser.close();
    }
  });
});
