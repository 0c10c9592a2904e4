import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '@shared/domain';
import { callChecked } from '../../helpers/checked-dispatch';
import { ensureBuilt, launchBrowser } from '../../helpers/browser';
import { startTestHost, type RunningHost } from '../../helpers/web-host';
import { openApp } from '../../e2e/session-helpers';
import { BenchReport, benchReps, median, percentile } from '../harness';

/**
 * Commit to paint (issue 21): how long a message takes from its store commit (the moment the
 * runtime shows it: `runs.onDidEvent` fires once the store says it is durable) to the frame in
 * which Chromium draws it in the session view's transcript (the first animation frame after the
 * transcript's element for the message appeared, or took the state `complete`). The baseline in
 * the same run, for the same messages, is commit to `run.events` on the app's event hub, before
 * any transport; the difference is what the transport and the page add. The host runs in this
 * process (startTestHost with the built renderer), so both ends read one clock (epoch ms). Each
 * repetition is one run of two scripted agents taking turns, streaming 5 characters every 20 ms;
 * a figure is the median (and p95) over the messages of a repetition. Never asserted on time.
 */
const REPS = benchReps(5);
const CLI = { surface: 'cli' } as const;
const CONTENT = 'Streaming text in small chunks, so the transcript keeps moving. '.repeat(3);

const fleet: FleetInput = {
  version: 1,
  name: 'Bench: commit to paint',
  agents: ['ada', 'bob'].map((name) => ({
    name,
    type: 'scripted' as const,
    script: [{ content: CONTENT, chunkSize: 5, delayMs: 20 }],
    loop: true,
  })),
  team: { pattern: 'round-robin', order: ['ada', 'bob'] },
  termination: { type: 'max-messages', max: 10 },
};

/** In the page: records, per message id and state, the epoch ms of the frame that drew it first. */
function watchTranscript(): void {
  const seen: Record<string, number> = {};
  (window as unknown as { paintTimes: Record<string, number> }).paintTimes = seen;
  const pending = new Set<string>();
  const scan = () => {
    for (const element of Array.from(
      document.querySelectorAll<HTMLElement>('[data-message-id][data-state]'),
    )) {
      const key = `${element.dataset.messageId}:${element.dataset.state}`;
      if (!(key in seen)) pending.add(key);
    }
    if (pending.size === 0) return;
    requestAnimationFrame(() => {
      const at = performance.timeOrigin + performance.now();
      for (const key of pending) seen[key] ??= at;
      pending.clear();
    });
  };
  new MutationObserver(scan).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-state'],
  });
}

interface RepFigures {
  paint: number[];
  hub: number[];
}

describe('commit to paint (Chromium)', () => {
  let running: RunningHost;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const report = new BenchReport(
    'commit-to-paint',
    'A message from its store commit to its paint in Chromium',
    {
      reps: REPS,
      chunk: '5 characters every 20 ms, two scripted agents, 10 messages',
    },
  );

  beforeAll(async () => {
    ensureBuilt();
    running = await startTestHost({ rendererDir: join(process.cwd(), 'out/renderer') });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
    await openApp(page, running.host.url);
  }, 120_000);

  afterAll(async () => {
    report.finish();
    await browser?.close();
    await running?.stop();
  });

  async function oneRun(): Promise<RepFigures> {
    const { app } = running;
    const epoch = () => performance.timeOrigin + performance.now();
    const committed = new Map<string, number>();
    const hub: number[] = [];
    const stopCommits = app.runs.onDidEvent((event) => {
      if (event.kind === 'message.started') committed.set(`${event.payload.messageId}:streaming`, epoch());
      if (event.kind === 'message.completed') committed.set(`${event.payload.message.id}:complete`, epoch());
    });
    const stopHub = app.hub.onDidEmit((delivered) => {
      if (delivered.channel !== 'run.events') return;
      const now = epoch();
      for (const event of delivered.payload.events) {
        const key =
          event.kind === 'message.started'
            ? `${event.payload.messageId}:streaming`
            : event.kind === 'message.completed'
              ? `${event.payload.message.id}:complete`
              : null;
        const at = key === null ? undefined : committed.get(key);
        if (at !== undefined) hub.push(now - at);
      }
    });
    let sessionId = '';
    let ready = Infinity;
    try {
      ({ sessionId } = await callChecked(
        app.dispatcher,
        'runs.start',
        { source: { fleet }, task: 'Stream' },
        CLI,
      ));
      await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
      await page.locator(`[data-testid="session-view"][data-session-id="${sessionId}"]`).waitFor();
      await page.evaluate(watchTranscript);
      // Only what was committed after the view was watching counts.
      ready = epoch();
      await app.runs.handle(sessionId)?.done;
      await page.waitForTimeout(300);
    } finally {
      stopHub();
      stopCommits();
    }
    const painted = await page.evaluate(
      () => (window as unknown as { paintTimes: Record<string, number> }).paintTimes,
    );
    const paint: number[] = [];
    for (const [key, at] of committed) {
      const drawn = painted[key];
      if (at >= ready && drawn !== undefined) paint.push(drawn - at);
    }
    await page.evaluate(() => (window.location.hash = '#/sessions'));
    return { paint, hub };
  }

  it('measures commit to paint beside commit to hub', { timeout: 600_000 }, async () => {
    await oneRun(); // warm-up: the first run loads the session view's chunks
    const reps: RepFigures[] = [];
    for (let rep = 0; rep < REPS; rep += 1) reps.push(await oneRun());
    expect(reps.every((rep) => rep.paint.length >= 10)).toBe(true);
    report.context.messagesPerRun = reps.map((rep) => rep.paint.length);
    report.add({
      id: 'commit-to-paint-median',
      label: 'message commit to paint in Chromium, median per run',
      unit: 'ms',
      values: reps.map((rep) => median(rep.paint)),
      baseline: { label: 'commit to hub', values: reps.map((rep) => median(rep.hub)) },
      goal: { kind: 'info', text: 'one batcher between a commit and a client (issue 21)' },
    });
    report.add({
      id: 'commit-to-paint-p95',
      label: 'message commit to paint in Chromium, p95 per run',
      unit: 'ms',
      values: reps.map((rep) => percentile(rep.paint, 0.95)),
      baseline: { label: 'commit to hub', values: reps.map((rep) => percentile(rep.hub, 0.95)) },
      note: 'paint: the first animation frame after the transcript element appeared or completed',
    });
  });
});
