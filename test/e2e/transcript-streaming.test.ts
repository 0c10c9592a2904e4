import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

const TOKEN = 'e2e-transcript-token-0123456789abcdef0123';
const WORKERS = 6;

/** Six scripted workers streaming several paragraphs each at once (10 characters every 20 ms). */
function streamingFleet(): FleetInput {
  const paragraph = 'Streaming findings, token by token, so the transcript keeps growing line by line.\n';
  const workers = Array.from({ length: WORKERS }, (_, i) => `worker${i}`);
  return {
    version: 1,
    name: 'Transcript streaming',
    agents: [...workers, 'aggregator'].map((name) => ({
      name,
      type: 'scripted',
      script: [{ content: paragraph.repeat(name === 'aggregator' ? 2 : 80), chunkSize: 10, delayMs: 20 }],
    })),
    team: { pattern: 'parallel', workers, aggregator: 'aggregator' },
    termination: { type: 'max-messages', max: 20 },
  };
}

/**
 * Where the newest message is against the transcript's scroller: how far its bottom edge is below
 * the scroller's bottom edge (negative: above it), the scroller's offset, and how much text the
 * streaming messages hold.
 */
function transcriptState(page: Page) {
  return page.evaluate(() => {
    const scroller = document.querySelector<HTMLElement>('[data-testid="transcript-scroller"]')!;
    const lastId = document.querySelector<HTMLElement>('[data-testid="transcript"]')!.dataset.lastMessage;
    const last = lastId
      ? scroller.querySelector<HTMLElement>(`[data-testid="message"][data-message-id="${lastId}"]`)
      : null;
    const streamed = Array.from(
      scroller.querySelectorAll<HTMLElement>('[data-testid="message"][data-state="streaming"]'),
    ).reduce((sum, node) => sum + (node.textContent ?? '').length, 0);
    return {
      lastBelowBottom: last
        ? last.getBoundingClientRect().bottom - scroller.getBoundingClientRect().bottom
        : null,
      scrollTop: scroller.scrollTop,
      streaming: scroller.querySelectorAll('[data-testid="message"][data-state="streaming"]').length,
      streamed,
    };
  });
}

/** Waits until the streaming messages in view have grown by `characters`. */
async function waitForGrowth(page: Page, characters: number): Promise<void> {
  const before = (await transcriptState(page)).streamed;
  await expect
    .poll(async () => (await transcriptState(page)).streamed, { timeout: 20_000 })
    .toBeGreaterThan(before + characters);
}

describe('the transcript while many messages stream (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      pageErrors,
      consoleErrors: true,
    }));
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: streamingFleet() },
      task: 'Report back, all at once',
    });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="message"][data-state="streaming"]').length >= 2,
      undefined,
      { timeout: 30_000 },
    );
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('keeps the newest message in view at the bottom while every streaming row grows', async () => {
    for (let sample = 0; sample < 5; sample++) {
      await waitForGrowth(page, 200);
      const state = await transcriptState(page);
      expect(state.streaming).toBeGreaterThan(0);
      // Its bottom edge at the scroller's bottom, give or take a line that grew since the last frame.
      expect(state.lastBelowBottom).not.toBeNull();
      expect(Math.abs(state.lastBelowBottom!)).toBeLessThan(48);
    }
    await shot(page, 'transcript-streaming-pinned.png');
  });

  it('stays where the user scrolled to while rows grow, and follows again back at the end', async () => {
    const box = (await page.getByTestId('transcript-scroller').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const atEnd = () =>
      expect
        .poll(async () => Math.abs((await transcriptState(page)).lastBelowBottom ?? Infinity), {
          timeout: 5_000,
        })
        .toBeLessThan(48);
    const atTop = () =>
      expect.poll(async () => (await transcriptState(page)).scrollTop, { timeout: 5_000 }).toBe(0);
    // Down to the end and all the way up, several times while rows grow, on a page slowed down 3x
    // (frames take long enough that the browser scrolls from where it last drew the list, often
    // before a pin the list has just written). At the end the list pins itself as rows grow (still
    // there after they grew), and the wheel up must end at the top all the same.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 3 });
    try {
      for (let round = 0; round < 6; round++) {
        await page.mouse.wheel(0, 1_000_000);
        await atEnd();
        await waitForGrowth(page, 60);
        await atEnd();
        await page.mouse.wheel(0, -1_000_000);
        await atTop();
      }
      // Turning straight back: the last direction decides (down, then up at once: the top).
      await page.mouse.wheel(0, 1_000_000);
      await page.mouse.wheel(0, -1_000_000);
      await atTop();
    } finally {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await cdp.detach();
    }
    await waitForGrowth(page, 300);
    expect((await transcriptState(page)).scrollTop).toBe(0);
    await page.getByTestId('message').first().waitFor();
    await shot(page, 'transcript-streaming-scrolled-up.png');

    await page.mouse.wheel(0, 1_000_000);
    await expect
      .poll(async () => Math.abs((await transcriptState(page)).lastBelowBottom ?? Infinity))
      .toBeLessThan(48);
    await waitForGrowth(page, 200);
    const state = await transcriptState(page);
    if (state.streaming > 0) expect(Math.abs(state.lastBelowBottom!)).toBeLessThan(48);
  });

  it('stays at the end when the transcript gets shorter, once the run is over', async () => {
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    await expect
      .poll(async () => Math.abs((await transcriptState(page)).lastBelowBottom ?? Infinity))
      .toBeLessThan(4);
    await page.setViewportSize({ width: 1280, height: 560 });
    await expect
      .poll(async () => Math.abs((await transcriptState(page)).lastBelowBottom ?? Infinity))
      .toBeLessThan(4);
    await shot(page, 'transcript-streaming-completed-short.png');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
