import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunEvent } from '@shared/domain';
import { callHost, serveForSuite, shot } from './session-helpers';
import { openSession, showLens, waitForSamples } from './lanes-helpers';

const TOKEN = 'e2e-transcript-order-token-0123456789abcdef01';

/** Message ids in the order the transcript lists them. */
function transcriptOrder(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(
      document.querySelectorAll<HTMLElement>('[data-testid="transcript"] [data-testid="message"]'),
    ).map((element) => element.dataset.messageId ?? ''),
  );
}

/** Message ids in the order of the lanes' rows. */
function lanesOrder(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('[data-testid="lane-row"][data-kind="message"]'))
      .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
      .map((element) => element.dataset.messageId ?? ''),
  );
}

/**
 * In the parallel research sample three researchers answer the task at once and the editor then
 * answers one of them. The transcript lists every message in the order it first appeared in the
 * log, as the lanes do, so a reply at 0:00.3 never sits above a message at 0:00.0.
 */
describe('one message order in the transcript and the lanes (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1024, height: 700 } });

  it('lists the parallel sample in log order in both views', { timeout: 180_000 }, async () => {
    const { page, host } = app;
    const samples = await waitForSamples(host.port, TOKEN, ['Parallel research']);
    const sample = samples.find((session) => session.fleetName === 'Parallel research')!;
    const { events } = await callHost<{ events: RunEvent[] }>(host.port, TOKEN, 'sessions.events', {
      id: sample.id,
      afterSeq: 0,
      limit: 20_000,
    });
    const logOrder: string[] = [];
    for (const event of events) {
      const id =
        event.kind === 'message.started'
          ? event.payload.messageId
          : event.kind === 'message.completed'
            ? event.payload.message.id
            : null;
      if (id && !logOrder.includes(id)) logOrder.push(id);
    }
    expect(logOrder.length).toBeGreaterThanOrEqual(5);

    await openSession(page, sample.id);
    await showLens(page, 'lanes');
    await expect.poll(() => transcriptOrder(page)).toEqual(logOrder);
    expect(await lanesOrder(page)).toEqual(logOrder);
    // The clocks read down the transcript never go back.
    const clocks = await page
      .getByTestId('transcript')
      .getByTestId('message-time')
      .evaluateAll((elements) => elements.map((element) => element.textContent ?? ''));
    const ms = clocks.map((clock) => {
      const [minutes, seconds] = clock.split(':');
      return Number(minutes) * 60_000 + Number(seconds) * 1000;
    });
    expect(ms).toEqual([...ms].sort((a, b) => a - b));

    for (const [width, height] of [
      [1024, 700],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
        expect(await transcriptOrder(page)).toEqual(logOrder);
        await shot(page, `transcript-order-parallel-${width}-${scheme}.png`);
      }
    }
  });
});
