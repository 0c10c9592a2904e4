import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import { callHost, serveForSuite, shot } from './session-helpers';
import { listSessions, openSession } from './lanes-helpers';

const TOKEN = 'e2e-compare-aligned-token-0123456789abcdef0';
const SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;
const EDITED = 'Remote work needs an office day each week, or teams drift apart.';

async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

async function settled(port: number, ids: string[]): Promise<void> {
  await expect
    .poll(
      async () =>
        (await listSessions(port, TOKEN))
          .filter((session) => ids.includes(session.id))
          .every((session) => session.status !== 'running'),
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** An OpenAI message list, imported as a session of its own (no shared history with any other). */
async function importChat(port: number, fileName: string, lines: string[]): Promise<string> {
  const content = JSON.stringify(
    lines.map((text, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: text })),
  );
  const { sessionId } = await callHost<{ sessionId: string }>(port, TOKEN, 'sessions.importData', {
    fileName,
    content,
  });
  return sessionId;
}

async function openCompare(page: Page, a: string, b: string): Promise<void> {
  await page.evaluate(([left, right]) => (window.location.hash = `#/compare/${left}/${right}`), [a, b]);
  await page.getByTestId('compare-view').waitFor();
  await page.getByTestId('compare-summary').waitFor();
}

/**
 * Compare shows the parent on the left and the fork's edit as its change, in the session view's
 * colours and without an "everyone" hub; messages after the divergence pair up by content; two
 * sessions with nothing in common say so.
 */
describe('compare aligns by content and reads like the session view (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1920, height: 1080 } });

  it('puts the parent left and the fork right, in the session colours, without a hub', async () => {
    const { page, host } = app;
    const fleet = JSON.parse(
      readFileSync(join('resources', 'fleets', 'scripted', 'debate.json'), 'utf8'),
    ) as FleetInput;
    const { sessionId: parent } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet },
      task: 'Does remote work make teams more productive?',
    });
    await settled(host.port, [parent]);
    const { sessionId: fork } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'branches.fork', {
      sessionId: parent,
      atMessage: 2,
      text: EDITED,
    });
    await settled(host.port, [fork]);

    // The session view's colour of the first speaker.
    await openSession(page, parent);
    const speaker = page.locator('[data-testid="message"][data-kind="text"]').first();
    const name = (await speaker.getAttribute('data-from')) ?? '';
    const sessionColor = await speaker
      .locator('.sender')
      .evaluate((element) => getComputedStyle(element).color);

    // Opened fork first: the parent is still on the left.
    await openCompare(page, fork, parent);
    await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-a')).toBe(parent);
    await expect.poll(() => page.getByTestId('compare-relation').textContent()).toContain('B is a fork of A');
    const second = page.locator('[data-testid="compare-pair"][data-position="2"]');
    await expect.poll(() => second.getAttribute('data-state')).toBe('differs');
    expect(await second.locator('.cell.b').textContent()).toContain(EDITED);
    await expect.poll(() => second.locator('mark.b').count()).toBeGreaterThan(0);
    expect(await second.locator('.cell.a').textContent()).not.toContain(EDITED);

    const sender = page.locator('[data-testid="compare-sender"]', { hasText: `${name} →` }).first();
    expect(await sender.evaluate((element) => getComputedStyle(element).color)).toBe(sessionColor);
    // The graphs are the session view's, in its colours: the speaker's card has its colour.
    const card = page
      .getByTestId('compare-graph-a')
      .locator(`[data-testid="agent-node"][data-agent="${name}"]`);
    await card.waitFor();
    expect(await card.locator('.dot').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      sessionColor,
    );
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        if (size.width < 1400) await page.getByTestId('compare-tab-transcript').click();
        await shot(page, `compare-fork-${size.name}-${scheme}.png`);
        if (size.width < 1400) {
          await page.getByTestId('compare-tab-overview').click();
          await page.getByTestId('compare-graphs').scrollIntoViewIfNeeded();
          await shot(page, `compare-fork-graphs-${size.name}-${scheme}.png`);
        }
      }
    }
    await useTheme(page, 'light');
    await page.setViewportSize({ width: 1920, height: 1080 });
  });

  it('pairs messages after one inserted message by content, not by position', async () => {
    const { page, host } = app;
    const base = ['Plan the launch.', 'Step one: pick a date.', 'Go on.', 'Step two: invite press.', 'And?'];
    const tail = ['Step three: ship it.', 'Thanks.', 'Done.'];
    const a = await importChat(host.port, 'launch-a.json', [...base, ...tail]);
    const b = await importChat(host.port, 'launch-b.json', [
      ...base.slice(0, 3),
      'Step two: invite press and analysts.',
      'And the budget?',
      'Under ten thousand.',
      'And?',
      ...tail,
    ]);
    await openCompare(page, a, b);
    await page.getByTestId('compare-diverge').waitFor();
    const pairs = page.locator('[data-testid="compare-pair"]');
    await expect.poll(() => pairs.count()).toBeGreaterThanOrEqual(9);
    const states = await pairs.evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.state));
    // 4 the same, the edit, two inserted, then "And?" and the tail beside themselves again.
    expect(states).toEqual([
      'same',
      'same',
      'same',
      'differs',
      'missing',
      'missing',
      'same',
      'same',
      'same',
      'same',
    ]);
    await shot(page, 'compare-aligned-1920x1080-light.png');
  });

  it('says two sessions with no common history share none, with no word diff', async () => {
    const { page, host } = app;
    const a = await importChat(host.port, 'pasta.json', ['How long do I boil pasta?', 'About ten minutes.']);
    const b = await importChat(host.port, 'tyres.json', ['When should I change tyres?', 'Every six years.']);
    await openCompare(page, a, b);
    await expect.poll(() => page.getByTestId('compare-relation').textContent()).toContain('share no history');
    await expect.poll(() => page.locator('[data-testid="compare-pair"]').count()).toBe(2);
    expect(await page.locator('[data-testid="diff-mark"]').count()).toBe(0);
    // Neither is the other's fork: Swap swaps, in the address and on screen.
    await page.getByTestId('compare-swap').click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/compare/${b}/${a}`);
    await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-a')).toBe(b);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await useTheme(page, scheme);
        await shot(page, `compare-unrelated-${size.name}-${scheme}.png`);
      }
    }
  });
});
