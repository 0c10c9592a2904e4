import { describe, expect, it } from 'vitest';
import type { Message, RunEvent } from '@shared/domain';
import { callHost, serveForSuite, shot, useTheme } from './session-helpers';
import { openSession, waitForSamples } from './lanes-helpers';

const TOKEN = 'e2e-wall-clock-token-0123456789abcdef0123456';

interface Listed {
  id: string;
  fleetName: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Times in the session view count from the start; the wall-clock time of each message is on its
 * time (a tooltip and a machine-readable datetime), and the list and the header say when each
 * session last had activity.
 */
describe('wall-clock times (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1024, height: 700 } });

  it(
    'tells each message its wall-clock time and each session its last activity',
    { timeout: 180_000 },
    async () => {
      const { page, host } = app;
      await waitForSamples(host.port, TOKEN, ['Debate']);
      const { items } = await callHost<{ items: Listed[] }>(host.port, TOKEN, 'sessions.list', {
        limit: 100,
      });
      const sample = items.find((item) => item.fleetName === 'Debate')!;
      const { events } = await callHost<{ events: RunEvent[] }>(host.port, TOKEN, 'sessions.events', {
        id: sample.id,
        afterSeq: 0,
        limit: 20_000,
      });
      const messages: Message[] = events.flatMap((event) =>
        event.kind === 'message.completed' ? [event.payload.message] : [],
      );
      expect(messages.length).toBeGreaterThan(2);

      // The list: every row says when its session last had activity, with the start in its tooltip.
      await page.getByTestId('nav-sessions').click();
      const row = page.locator(`[data-testid="session-row"][data-session-id="${sample.id}"]`);
      const activity = row.getByTestId('row-last-activity');
      await expect.poll(() => activity.textContent()).toMatch(/^last activity \S/);
      const rowTitle = (await activity.getAttribute('title')) ?? '';
      expect(rowTitle).toContain(new Date(sample.createdAt).toLocaleString());
      expect(rowTitle).toContain(new Date(sample.updatedAt).toLocaleString());
      for (const [width, height] of [
        [1024, 700],
        [1920, 1080],
      ] as const) {
        await page.setViewportSize({ width, height });
        for (const scheme of ['light', 'dark'] as const) {
          await useTheme(page, scheme);
          await shot(page, `wall-clock-list-${width}-${scheme}.png`);
        }
      }

      // The session view: each message's time carries its wall-clock time.
      await useTheme(page, 'light');
      await page.setViewportSize({ width: 1024, height: 700 });
      await openSession(page, sample.id);
      const times = page.getByTestId('transcript').getByTestId('message-time');
      await expect.poll(() => times.count()).toBeGreaterThan(2);
      const shown = await times.evaluateAll((elements) =>
        elements.map((element) => ({
          datetime: element.getAttribute('datetime'),
          title: element.getAttribute('title') ?? '',
        })),
      );
      const second = messages[1]!;
      const secondShown = shown.find(
        (item) => item.datetime === new Date(sample.createdAt + second.t).toISOString(),
      );
      expect(secondShown, 'the second message carries its wall-clock time').toBeDefined();
      const expected = await page.evaluate(
        (epoch) =>
          new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(epoch),
        sample.createdAt + second.t,
      );
      expect(secondShown!.title).toContain(expected);
      expect(secondShown!.title).toMatch(/after the session started/);
      expect(await page.getByTestId('session-last-activity').textContent()).toMatch(/last activity \S/);
      expect(await page.getByTestId('replay-position').getAttribute('title')).toMatch(/^At the playhead: /);
      for (const [width, height] of [
        [1024, 700],
        [1920, 1080],
      ] as const) {
        await page.setViewportSize({ width, height });
        for (const scheme of ['light', 'dark'] as const) {
          await useTheme(page, scheme);
          await shot(page, `wall-clock-session-${width}-${scheme}.png`);
        }
      }
      await useTheme(page, 'light');
    },
  );
});
