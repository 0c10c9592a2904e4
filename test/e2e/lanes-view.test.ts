import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, openApp, shot } from './session-helpers';
import { streamingFleet } from '../bench/chromium/streaming-fleet';
import {
  waitForSamples,
  openSession,
  playhead,
  readLanes,
  readTranscript,
  showLens,
  type ListedSession,
} from './lanes-helpers';

const TOKEN = 'e2e-lanes-token-0123456789abcdef0123456789';

describe('the sequence lens (lanes) in Chromium', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let samples: ListedSession[];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'), { token: TOKEN });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openApp(page, host.url);
    samples = await waitForSamples(host.port, TOKEN, [
      'Code review pipeline',
      'Debate',
      'Support swarm',
      'Parallel research',
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  const sample = (fleetName: string) => {
    const found = samples.find((session) => session.fleetName === fleetName);
    if (!found)
      throw new Error(`no sample session of ${fleetName}: ${samples.map((s) => s.fleetName).join(', ')}`);
    return found;
  };

  it('draws one lane per agent and one row per message, in the order they were said', async () => {
    const session = sample('Code review pipeline');
    await openSession(page, session.id);
    await showLens(page, 'lanes');
    const lanes = await page
      .getByTestId('lane')
      .evaluateAll((elements) => elements.map((element) => (element as HTMLElement).dataset.agent));
    expect(lanes).toEqual(['user', 'author', 'reviewer', 'reviser', 'approver']);
    const rows = page.locator('[data-testid="lane-row"][data-kind="message"]');
    await expect.poll(() => rows.count()).toBe(session.messageCount);
    const senders = await rows.evaluateAll((elements) =>
      elements.map((element) => (element as HTMLElement).dataset.from),
    );
    expect(senders).toEqual(['user', 'author', 'reviewer', 'reviser', 'approver']);
    expect(await page.getByTestId('lane-bar').count()).toBeGreaterThan(3);
    // The author's unfenced code keeps its indentation in the transcript, highlighted as code.
    const code = page.locator('[data-testid="message"][data-from="author"] [data-testid="message-body"]');
    expect(await code.getAttribute('data-mode')).toBe('code');
    expect(await code.evaluate((element) => element.textContent)).toContain('{\n  return values.reduce(');
    expect(await code.locator('pre .hljs-keyword').count()).toBeGreaterThan(0);
  });

  for (const size of [
    { width: 1024, height: 700 },
    { width: 1920, height: 1080 },
  ])
    for (const scheme of ['light', 'dark'] as const)
      it(`looks right at ${size.width}x${size.height} in ${scheme}`, async () => {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        for (const fleet of ['Code review pipeline', 'Debate', 'Support swarm', 'Parallel research']) {
          const session = samples.find((candidate) => candidate.fleetName === fleet);
          if (!session) continue;
          await openSession(page, session.id);
          await showLens(page, 'lanes');
          await page.locator('[data-testid="lane-row"]').first().waitFor();
          const slug = fleet.toLowerCase().replace(/[^a-z]+/g, '-');
          await shot(page, `lanes-${slug}-${size.width}x${size.height}-${scheme}.png`);
          const layout = await page.getByTestId('lanes').evaluate((root) => {
            const gutter = root.querySelector('.gutter')!.getBoundingClientRect();
            const scroller = root.querySelector('[data-testid="lanes-scroller"]')!.getBoundingClientRect();
            const labels = Array.from(root.querySelectorAll('[data-testid="lane-row"] .text')).map((label) =>
              label.getBoundingClientRect(),
            );
            const names = Array.from(root.querySelectorAll('[data-testid="lane"] .name')) as HTMLElement[];
            const background = getComputedStyle(root).backgroundColor.match(/\d+/g)!.map(Number);
            return {
              underGutter: labels.filter((box) => box.width > 0 && box.left < gutter.right - 1).length,
              outsidePane: labels.filter(
                (box) => box.top < scroller.top - 1 || box.bottom > scroller.bottom + 1,
              ).length,
              clippedNames: names
                .filter((name) => name.scrollWidth > name.clientWidth + 1)
                .map((name) => name.textContent),
              brightness: (background[0]! + background[1]! + background[2]!) / 3,
            };
          });
          // No label under the time gutter or outside the pane; lane names readable; the theme applied.
          expect(layout.underGutter, fleet).toBe(0);
          expect(layout.outsidePane, fleet).toBe(0);
          expect(layout.clippedNames, fleet).toEqual([]);
          if (scheme === 'dark') expect(layout.brightness).toBeLessThan(80);
          else expect(layout.brightness).toBeGreaterThan(200);
        }
      });

  it('replays in step with the transcript and the replay bar', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    const session = sample('Debate');
    await openSession(page, session.id);
    await showLens(page, 'lanes');
    const { lastSeq } = await playhead(page);
    await page.keyboard.press('Home');
    await expect.poll(async () => (await readLanes(page)).seq).toBe(0);
    expect(await page.locator('[data-testid="lane-row"]').count()).toBe(0);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // Every animation frame of the replay: the bar, the lanes and the transcript at one seq.
    const frames = await page.evaluate(async () => {
      const read = (testId: string) =>
        Number(document.querySelector<HTMLElement>(`[data-testid="${testId}"]`)?.dataset.seq);
      const seen: { bar: number; lanes: number; transcript: number; pill: string }[] = [];
      const pill = () => document.querySelector('[data-testid="session-status"]')?.textContent?.trim() ?? '';
      window.dispatchEvent(new KeyboardEvent('keydown', { key: ' ' }));
      const end = Number(
        document.querySelector<HTMLElement>('[data-testid="replay-position"]')?.dataset.lastSeq,
      );
      const started = performance.now();
      await new Promise<void>((resolve) => {
        const tick = () => {
          // Read after Vue has rendered this frame's seek.
          setTimeout(() => {
            const bar = read('replay-position');
            seen.push({ bar, lanes: read('lanes'), transcript: read('transcript'), pill: pill() });
            if (bar >= end || performance.now() - started > 20_000) resolve();
            else requestAnimationFrame(tick);
          }, 0);
        };
        requestAnimationFrame(tick);
      });
      return seen;
    });
    const positions = new Set(frames.map((frame) => frame.bar));
    expect(positions.size).toBeGreaterThan(5);
    for (const frame of frames) {
      expect(frame.lanes).toBe(frame.bar);
      expect(frame.transcript).toBe(frame.bar);
      // A replay says where it is, never "Running"; at the end, the session's final status.
      expect(frame.pill).toBe(frame.bar < lastSeq ? `Replaying · ${frame.bar}/${lastSeq}` : 'Completed');
    }
    await expect.poll(async () => (await playhead(page)).seq, { timeout: 30_000 }).toBe(lastSeq);
    const lanes = await readLanes(page);
    const transcript = await readTranscript(page);
    expect(lanes.lastMessage).toBe(transcript.lastMessage);
    expect(lanes.lastMessageState).toBe('complete');
  });

  it('picks a message in the lanes: the transcript selects it and the playhead moves to it', async () => {
    const session = sample('Debate');
    await openSession(page, session.id);
    await showLens(page, 'lanes');
    const row = page.locator('[data-testid="lane-row"][data-kind="message"]').nth(2);
    const id = await row.getAttribute('data-message-id');
    expect(id).toBeTruthy();
    await row.click();
    const picked = page.locator(`[data-testid="message"][data-message-id="${id}"]`);
    await expect.poll(() => picked.getAttribute('data-selected')).toBe('true');
    const { seq, lastSeq } = await playhead(page);
    expect(seq).toBeLessThan(lastSeq);
    expect((await readTranscript(page)).lastMessage).toBe(id);
    expect(await page.getByTestId('session-status').textContent()).toContain(`Replaying · ${seq}/${lastSeq}`);
    await shot(page, 'lanes-picked-message.png');
  });

  it('picks a message in the transcript: the lanes scroll to it', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    const session = sample('Debate');
    await openSession(page, session.id);
    await showLens(page, 'lanes');
    const first = page.locator('[data-testid="message"]').first();
    const id = await first.getAttribute('data-message-id');
    // Scroll the lanes away from the first row, then pick it in the transcript.
    await page
      .getByTestId('lanes-scroller')
      .evaluate((element) => (element.scrollTop = element.scrollHeight));
    await first.locator('header').click();
    const row = page.locator(`[data-testid="lane-row"][data-message-id="${id}"]`);
    await expect.poll(() => row.getAttribute('class')).toContain('selected');
    await expect
      .poll(() =>
        page.evaluate((messageId) => {
          const scroller = document.querySelector('[data-testid="lanes-scroller"]')!.getBoundingClientRect();
          const target = document
            .querySelector(`[data-testid="lane-row"][data-message-id="${messageId}"]`)
            ?.getBoundingClientRect();
          return !!target && target.top >= scroller.top && target.bottom <= scroller.bottom;
        }, id),
      )
      .toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('seeks where the header says the first wait ended', async () => {
    const session = sample('Debate');
    await openSession(page, session.id);
    const wait = page.getByTestId('insight-wait').first();
    await wait.waitFor();
    expect(await wait.textContent()).toMatch(/\S+ waited [\d.]+ (ms|s) for \S+/);
    const target = Number(await wait.getAttribute('data-seq'));
    await wait.click();
    await expect.poll(async () => (await playhead(page)).seq).toBe(target);
  });

  it('follows a live run with a person in the loop: Live, waiting for you, then the answer', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const fleet = {
      version: 1,
      name: 'Ask me in the lanes',
      agents: [
        {
          name: 'bot',
          type: 'scripted',
          script: [
            {
              content: 'Which colour should the report use? I will wait for you.',
              chunkSize: 4,
              delayMs: 60,
            },
            { content: 'Noted, blue it is. DONE', chunkSize: 4, delayMs: 30 },
          ],
        },
        { name: 'me', type: 'human', description: 'the user' },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'text-mention', text: 'DONE' },
    };
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet },
      task: 'Pick a colour',
    });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.locator(`[data-testid="session-view"][data-session-id="${sessionId}"]`).waitFor();
    await showLens(page, 'lanes');
    const pill = page.getByTestId('session-status');
    // While the bot streams, the view follows the run: Live, the bot's lane streaming.
    await page
      .locator('[data-testid="lane"][data-agent="bot"][data-status="streaming"]')
      .waitFor({ timeout: 15_000 });
    expect(await pill.textContent()).toContain('Live');
    await page.locator('[data-testid="lane-row"][data-kind="human-ask"]').waitFor({ timeout: 15_000 });
    await expect.poll(() => pill.textContent(), { timeout: 10_000 }).toContain('Waiting for you');
    await page.locator('[data-testid="lane"][data-agent="me"][data-status="waiting-for-human"]').waitFor();
    await page.locator('[data-testid="lane-bar"][data-agent="me"][data-kind="human"]').waitFor();
    await shot(page, 'lanes-live-waiting-for-you.png');
    await page.getByTestId('human-answer').fill('Blue');
    await page.getByTestId('human-send').click();
    await expect.poll(() => pill.textContent(), { timeout: 20_000 }).toContain('Completed');
    expect(await page.locator('[data-testid="lane-row"][data-kind="human-answer"]').count()).toBe(1);
    const lanes = await readLanes(page);
    expect(lanes.lastMessage).toBe((await readTranscript(page)).lastMessage);
    await shot(page, 'lanes-live-completed.png');
  });

  it('shows 50 agents with 16 streaming at once: every lane named, the lens scrolls sideways', async () => {
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: streamingFleet() },
      task: 'Stream at once',
    });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await showLens(page, 'lanes');
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="lane"][data-status="streaming"]').length >= 8,
      undefined,
      { timeout: 30_000 },
    );
    for (const size of [
      { width: 1024, height: 700 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(size);
      await page.waitForTimeout(300);
      await shot(page, `lanes-50-agents-streaming-${size.width}x${size.height}.png`);
    }
    const layout = await page.getByTestId('lanes').evaluate((root) => {
      const scroller = root.querySelector<HTMLElement>('[data-testid="lanes-scroller"]')!;
      const names = Array.from(root.querySelectorAll<HTMLElement>('[data-testid="lane"] .name'));
      return {
        lanes: root.querySelectorAll('[data-testid="lane"]').length,
        clipped: names.filter((name) => name.scrollWidth > name.clientWidth + 1).length,
        sideways: scroller.scrollWidth > scroller.clientWidth,
        streamingBars: root.querySelectorAll('[data-testid="lane-bar"][data-kind="streaming"]').length,
      };
    });
    expect(layout.lanes).toBe(51); // the 50 agents and the person who gave the task
    expect(layout.clipped).toBe(0);
    expect(layout.sideways).toBe(true);
    expect(layout.streamingBars).toBeGreaterThan(0);
    // Scrolled up by the user while the run streams on, the lens stays where the user put it.
    await page.setViewportSize({ width: 1024, height: 700 });
    const lens = page.getByTestId('lanes');
    const scroller = page.getByTestId('lanes-scroller');
    expect(await scroller.evaluate((element) => element.scrollHeight - element.clientHeight)).toBeGreaterThan(
      100,
    );
    await scroller.evaluate((element) => (element.scrollTop = element.scrollHeight));
    await page.waitForTimeout(200);
    await scroller.evaluate((element) => (element.scrollTop = 0));
    const seq = Number(await lens.getAttribute('data-seq'));
    await expect.poll(async () => Number(await lens.getAttribute('data-seq'))).toBeGreaterThan(seq + 50);
    await page.waitForTimeout(200);
    expect(await scroller.evaluate((element) => element.scrollTop)).toBeLessThan(40);
    await callHost(host.port, TOKEN, 'runs.control', { sessionId, action: 'stop' }).catch(() => undefined);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('marks a tool call and an error, and the header seeks to the first error', async () => {
    const sample = JSON.parse(readFileSync(join('resources', 'samples', 'code-review.json'), 'utf8')) as {
      session: Record<string, unknown>;
      fleet: unknown;
      events: { kind: string; payload: unknown }[];
    };
    const started = sample.events[0]!;
    const message = (id: string, from: string, to: string, extra: Record<string, unknown>) => ({
      id,
      threadId: 'm1',
      parentId: null,
      from,
      to,
      kind: 'text',
      content: '',
      meta: {},
      state: 'complete',
      t: 0,
      ...extra,
    });
    const bodies = [
      { agent: null, kind: 'session.started', payload: started.payload },
      {
        agent: 'user',
        kind: 'message.completed',
        payload: { message: message('m1', 'user', 'author', { kind: 'task', content: 'Average of a list' }) },
      },
      { agent: 'author', kind: 'agent.status', payload: { status: 'thinking' } },
      {
        agent: 'author',
        kind: 'message.completed',
        payload: {
          message: message('m2', 'author', 'author', {
            kind: 'function',
            toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"(1+2)/0"}' }],
          }),
        },
      },
      {
        agent: 'author',
        kind: 'tool.requested',
        payload: { messageId: 'm2', callId: 'c1', name: 'calculator', arguments: '{"expression":"(1+2)/0"}' },
      },
      {
        agent: 'author',
        kind: 'tool.executed',
        payload: { callId: 'c1', name: 'calculator', result: 'Division by zero', isError: true },
      },
      {
        agent: 'author',
        kind: 'error',
        payload: { code: 'rate-limited', message: 'The provider refused: 429' },
      },
      { agent: 'author', kind: 'agent.status', payload: { status: 'error' } },
      {
        agent: null,
        kind: 'session.stopped',
        payload: { status: 'failed', stopReason: 'error', detail: 'author failed' },
      },
    ];
    const events = bodies.map((body, index) => ({ seq: index + 1, t: index * 700, ...body }));
    const file = {
      format: 'fleetscope-session',
      version: 1,
      session: { ...sample.session, id: 'ses_lanes-error', title: 'A tool fails', status: 'failed' },
      fleet: sample.fleet,
      events,
    };
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'sessions.importData', {
      fileName: 'lanes-error.json',
      content: JSON.stringify(file),
    });
    await openSession(page, sessionId);
    await showLens(page, 'lanes');
    const call = page.locator('[data-testid="lane-row"][data-message-id="m2"]');
    await call.waitFor();
    expect(await call.getAttribute('class')).toContain('style-tool');
    expect(await call.textContent()).toContain('calculator');
    await page.locator('[data-testid="lane-row"][data-kind="error"]').waitFor();
    const first = page.getByTestId('insight-first-error');
    await first.waitFor();
    // The tool's failure is the first thing that went wrong (before the error event).
    expect(await first.textContent()).toContain('calculator failed: Division by zero');
    await first.click();
    await expect.poll(async () => (await playhead(page)).seq).toBe(6);
    expect(await page.getByTestId('session-status').textContent()).toContain('Replaying · 6/9');
    expect(
      await page.locator('[data-testid="lane-bar"][data-agent="author"][data-kind="tool"]').count(),
    ).toBe(1);
    await shot(page, 'lanes-tool-and-error.png');
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
