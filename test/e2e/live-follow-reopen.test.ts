import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';
import { showLens } from './lanes-helpers';

const TOKEN = 'e2e-live-follow-token-0123456789abcdef012';

/**
 * Workers answering one after another (a round-robin team), each reply streamed slowly, so a
 * run keeps adding rows to the transcript and the lanes for a while.
 */
function slowFleet(name: string): FleetInput {
  const agents = ['alpha', 'beta', 'gamma'];
  const paragraph = 'Working through the task, line by line, so the newest message keeps growing.\n';
  return {
    version: 1,
    name,
    agents: agents.map((agent) => ({
      name: agent,
      type: 'scripted',
      loop: true,
      script: [{ content: paragraph.repeat(3), chunkSize: 12, delayMs: 25 }],
    })),
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 150 },
  };
}

/** How far the newest message's bottom edge is below the bottom of `scroller` (negative: above). */
function newestBelowBottom(page: Page, pane: 'transcript' | 'lanes') {
  return page.evaluate((which) => {
    const root = document.querySelector<HTMLElement>(`[data-testid="${which}"]`);
    const scroller = document.querySelector<HTMLElement>(`[data-testid="${which}-scroller"]`);
    if (!root || !scroller) return null;
    if (which === 'lanes') {
      // The lanes' end: the scroller shows its last pixels (the playhead's row is the bottom one).
      return scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
    }
    const id = root.dataset.lastMessage;
    const last = id
      ? scroller.querySelector<HTMLElement>(`[data-testid="message"][data-message-id="${id}"]`)
      : null;
    return last ? last.getBoundingClientRect().bottom - scroller.getBoundingClientRect().bottom : null;
  }, pane);
}

/** The transcript's offset and how many messages the session holds so far. */
function progress(page: Page) {
  return page.evaluate(() => ({
    scrollTop: document.querySelector<HTMLElement>('[data-testid="transcript-scroller"]')!.scrollTop,
    lastSeq: Number(
      document.querySelector<HTMLElement>('[data-testid="replay-position"]')?.dataset.lastSeq ?? -1,
    ),
  }));
}

/** Waits until the run has added `events` more events. */
async function waitForEvents(page: Page, events: number): Promise<void> {
  const before = (await progress(page)).lastSeq;
  await expect
    .poll(async () => (await progress(page)).lastSeq, { timeout: 30_000 })
    .toBeGreaterThan(before + events);
}

/** Expects both panes to show the newest rows, a few times as the run grows. */
async function expectFollowing(page: Page, lanes: boolean): Promise<void> {
  // Both panes hold more than they show (else any scroll position shows the end).
  for (const testId of lanes ? ['transcript-scroller', 'lanes-scroller'] : ['transcript-scroller'])
    await expect
      .poll(
        () => page.getByTestId(testId).evaluate((element) => element.scrollHeight - element.clientHeight),
        { timeout: 30_000 },
      )
      .toBeGreaterThan(200);
  for (let sample = 0; sample < 3; sample++) {
    await waitForEvents(page, 4);
    await expect
      .poll(async () => Math.abs((await newestBelowBottom(page, 'transcript')) ?? Infinity), {
        timeout: 5_000,
      })
      .toBeLessThan(48);
    if (lanes)
      await expect
        .poll(async () => Math.abs((await newestBelowBottom(page, 'lanes')) ?? Infinity), { timeout: 5_000 })
        .toBeLessThan(48);
  }
}

async function scrollUp(page: Page, testId: string): Promise<void> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -100_000);
  // At its top, or a few pixels below it: a row growing under the pane may nudge it (see
  // expectStayedUp; 3 px in one run of eight).
  await expect.poll(() => page.getByTestId(testId).evaluate((element) => element.scrollTop)).toBeLessThan(24);
}

/** The pane stayed near its top, far from its end (a row growing under it may nudge it a few pixels). */
async function expectStayedUp(page: Page, testId: string): Promise<void> {
  const { top, toEnd } = await page.getByTestId(testId).evaluate((element) => ({
    top: element.scrollTop,
    toEnd: element.scrollHeight - element.clientHeight - element.scrollTop,
  }));
  expect(top).toBeLessThan(24);
  expect(toEnd).toBeGreaterThan(200);
}

async function startAndOpen(port: number, page: Page, name: string): Promise<string> {
  const { sessionId } = await callHost<{ sessionId: string }>(port, TOKEN, 'runs.start', {
    source: { fleet: slowFleet(name) },
    task: 'Take turns reporting',
  });
  await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
  await page.locator(`[data-testid="session-view"][data-session-id="${sessionId}"]`).waitFor();
  await page.getByTestId('message').first().waitFor({ timeout: 30_000 });
  return sessionId;
}

describe('a live session opened after others follows its newest messages (Chromium + `fleetscope serve`)', () => {
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
      viewport: { width: 1280, height: 760 },
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('follows the first live run, and stops where the user scrolled up in either pane', async () => {
    await startAndOpen(host.port, page, 'First run');
    await showLens(page, 'lanes');
    await expectFollowing(page, true);
    await scrollUp(page, 'transcript-scroller');
    await scrollUp(page, 'lanes-scroller');
    await waitForEvents(page, 6);
    await expectStayedUp(page, 'transcript-scroller');
    await expectStayedUp(page, 'lanes-scroller');
  });

  it('follows the end of a second live run opened while the first was scrolled up', async () => {
    await startAndOpen(host.port, page, 'Second run');
    await expectFollowing(page, true);
    await shot(page, 'live-follow-second-run.png');
  });

  it('keeps following when the scroll events of its own pin come late (a loaded machine)', async () => {
    // A slow frame delivers the scroll event of the list's own write after its 100 ms window: the
    // event comes with no input and the scroller where the list put it. Sent here for 1.5 s while
    // rows grow, such events once held the pin off and then found the list short of the end.
    await page.getByTestId('transcript-scroller').evaluate(async (element) => {
      for (let at = 0; at < 1_500; at += 120) {
        element.dispatchEvent(new Event('scroll'));
        await new Promise((resolve) => setTimeout(resolve, 120));
      }
    });
    await expectFollowing(page, false);
  });

  it('stops following when the user scrolls up, and follows again back at the end', async () => {
    await scrollUp(page, 'transcript-scroller');
    await scrollUp(page, 'lanes-scroller');
    await waitForEvents(page, 6);
    await expectStayedUp(page, 'transcript-scroller');
    await expectStayedUp(page, 'lanes-scroller');
    for (const testId of ['transcript-scroller', 'lanes-scroller']) {
      await page.getByTestId(testId).hover();
      await page.mouse.wheel(0, 1_000_000);
    }
    await expectFollowing(page, true);
  });

  it('follows again after a seek back and End', async () => {
    await scrollUp(page, 'transcript-scroller');
    await page.getByTestId('replay-scrubber').evaluate((element) => {
      const input = element as HTMLInputElement;
      input.value = '3';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.locator('[data-testid="replay-position"][data-seq="3"]').waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('End');
    await expectFollowing(page, true);
  });

  it('follows a third live run opened after the seek, in the graph lens', async () => {
    await seekBack(page);
    await startAndOpen(host.port, page, 'Third run');
    await showLens(page, 'graph');
    await expectFollowing(page, false);
    await shot(page, 'live-follow-third-run.png');
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

async function seekBack(page: Page): Promise<void> {
  await page.getByTestId('replay-scrubber').evaluate((element) => {
    const input = element as HTMLInputElement;
    input.value = '2';
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.locator('[data-testid="replay-position"][data-seq="2"]').waitFor();
}
