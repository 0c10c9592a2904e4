import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { callHost, serveForSuite, shot, useTheme } from './session-helpers';
import { listSessions, openSession, playhead, seekTo } from './lanes-helpers';

const TOKEN = 'e2e-idle-gaps-token-0123456789abcdef0123456';
/** Replay plays an idle gap as this long (IDLE_GAP_LIMIT_MS in the renderer). */
const GAP_PLAYS_MS = 2_000;

/**
 * The AutoGen sample has a 13-minute pause between two messages. Replay plays it as 2 s at any
 * speed and the scrubber marks it "13 min skipped"; the frames keep the log's own times.
 */
describe('replay skips idle gaps (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1024, height: 700 } });

  it('labels a 13-minute gap on the scrubber and plays through it at 1x', { timeout: 180_000 }, async () => {
    const { page, host } = app;
    // The sample with the longest pause between two events, found from the stored logs.
    let found: { id: string; seq: number; ms: number; beforeT: number; afterT: number } | null = null;
    for (let tries = 0; !found && tries < 100; tries++) {
      for (const session of await listSessions(host.port, TOKEN)) {
        const { events } = await callHost<{ events: RunEvent[] }>(host.port, TOKEN, 'sessions.events', {
          id: session.id,
          afterSeq: 0,
          limit: 20_000,
        });
        for (let i = 1; i < events.length; i++) {
          const ms = events[i]!.t - events[i - 1]!.t;
          if (ms > 10 * 60_000 && (!found || ms > found.ms))
            found = {
              id: session.id,
              seq: events[i]!.seq,
              ms,
              beforeT: events[i - 1]!.t,
              afterT: events[i]!.t,
            };
        }
      }
      if (!found) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(found, 'a sample with a pause over 10 minutes').not.toBeNull();
    const gap = found!;
    const minutes = Math.round((gap.ms - GAP_PLAYS_MS) / 60_000);

    await openSession(page, gap.id);
    const mark = page.locator(`[data-testid="replay-gap"][data-seq="${gap.seq}"]`);
    await expect.poll(() => mark.textContent()).toBe(`${minutes} min skipped`);
    expect(minutes).toBeGreaterThanOrEqual(13);

    // Just before the gap, at 1x: the playhead crosses it (marked while it does) and goes on.
    await seekTo(page, gap.seq - 1);
    await page.getByTestId('replay-speed').selectOption('1');
    const clock = page.getByTestId('replay-position');
    const clockBefore = await clock.textContent();
    await page.getByTestId('replay-play').click();
    await expect.poll(() => mark.getAttribute('data-crossing')).toBe('true');
    await shot(page, 'replay-idle-gap-crossing-1024-light.png');
    await expect
      .poll(async () => (await playhead(page)).seq, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(gap.seq);
    expect(await mark.getAttribute('data-crossing')).toBe('false');
    // The clock shows the log's own time after the gap: 13 minutes on, not compressed.
    const clockAfter = (await clock.textContent()) ?? '';
    expect(clockAfter).not.toBe(clockBefore);
    expect(Number(clockAfter.split(':')[0])).toBeGreaterThanOrEqual(Math.floor(gap.afterT / 60_000));
    await page.getByTestId('replay-home').click();
    if ((await page.getByTestId('replay-play').getAttribute('aria-label'))?.startsWith('Pause'))
      await page.getByTestId('replay-play').click();

    for (const [width, height] of [
      [1024, 700],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await seekTo(page, gap.seq - 1);
        const box = await mark.boundingBox();
        expect(box, 'the gap mark is on screen').not.toBeNull();
        await shot(page, `replay-idle-gap-${width}-${scheme}.png`);
      }
    }
    await useTheme(page, 'light');
  });
});
