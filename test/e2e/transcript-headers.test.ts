import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import {
  callHost,
  serveInChromium,
  shot,
  stopServed,
  useTheme,
  type ChromiumBrowser,
} from './session-helpers';

const TOKEN = 'e2e-transcript-headers-token-0123456789abcdef';
/** A team member whose "research/… → everyone" is wider than the transcript pane at 1024 px. */
const LONG_MEMBER = 'fact-checker-of-every-cited-source';
const STREAMER = `research/${LONG_MEMBER}`;

/**
 * A lead, then a nested team whose members stream three characters every 250 ms (`slow`: for about
 * two minutes, so the first is still streaming while the headers are measured; the run is stopped
 * after) or say it all at once.
 */
function nestedFleet(slow: boolean): FleetInput {
  const content = 'checking every source once more; '.repeat(slow ? 45 : 2);
  return {
    version: 1,
    name: 'Nested team headers',
    agents: [
      {
        name: 'lead',
        type: 'scripted',
        role: 'sets the question',
        script: [{ content: 'Check it, all of you.' }],
      },
      {
        name: 'research',
        type: 'team',
        role: 'researchers',
        fleet: {
          version: 1,
          name: 'research',
          agents: [LONG_MEMBER, 'checker'].map((name) => ({
            name,
            type: 'scripted' as const,
            role: name,
            script: [slow ? { content, chunkSize: 3, delayMs: 250 } : { content }],
          })),
          team: { pattern: 'round-robin' },
          termination: { type: 'max-messages', max: 2 },
        },
      },
    ],
    team: { pattern: 'sequential' },
    termination: { type: 'max-messages', max: 6 },
  };
}

/** The transcript pane's widths checked: as the window gives it, and squeezed narrower. */
const WIDTHS = [
  { name: '1024x700', viewport: { width: 1024, height: 700 }, pane: null },
  { name: '1024x700-pane-260', viewport: { width: 1024, height: 700 }, pane: 260 },
  { name: '800x700-pane-200', viewport: { width: 800, height: 700 }, pane: 200 },
] as const;
const THEMES = ['light', 'dark'] as const;

/** What the header check found in the transcript as drawn now. */
interface HeaderMeasure {
  /** Header pieces measured, and the texts of those (to show what was covered). */
  pieces: number;
  texts: string[];
  /** Pieces whose text takes more than one line box ("text" over "tex / t"). */
  broken: string[];
  /** Pieces that stick out past the right edge of their header. */
  overflowing: string[];
  /** Pieces cut with an ellipsis that lack the full text in their title. */
  cutWithoutTitle: string[];
  /** Headers taller than their visible pieces (a hidden piece, such as Fork, wrapped to a blank row). */
  blankRows: string[];
  /** Pieces of one header drawn over each other (e.g. the corner's Fork button over a name). */
  overlapping: string[];
}

/**
 * For every header piece of every message on screen: its text's line boxes (a Range over its
 * contents) must all share one line (every box overlaps every other vertically), and the piece
 * must end inside its header and clear of the other pieces; a piece whose text is wider than its
 * box must carry a title (or sit in an element that does).
 */
function measureHeaders(page: Page, headers: string): Promise<HeaderMeasure> {
  return page.evaluate((selector) => {
    const result: HeaderMeasure = {
      pieces: 0,
      texts: [],
      broken: [],
      overflowing: [],
      cutWithoutTitle: [],
      blankRows: [],
      overlapping: [],
    };
    for (const header of Array.from(document.querySelectorAll(selector))) {
      const bounds = header.getBoundingClientRect();
      let visibleBottom = bounds.top;
      const drawn: { text: string; box: DOMRect }[] = [];
      for (const piece of Array.from(header.children) as HTMLElement[]) {
        const text = (piece.textContent ?? '').replace(/\s+/g, ' ').trim();
        const range = document.createRange();
        range.selectNodeContents(piece);
        const boxes = Array.from(range.getClientRects()).filter((box) => box.width > 0 && box.height > 0);
        if (boxes.length === 0) continue;
        result.pieces += 1;
        result.texts.push(text);
        const lowestTop = Math.max(...boxes.map((box) => box.top));
        const highestBottom = Math.min(...boxes.map((box) => box.bottom));
        if (lowestTop >= highestBottom - 1) result.broken.push(`"${text}" on ${boxes.length} boxes`);
        const own = piece.getBoundingClientRect();
        for (const other of drawn)
          if (
            Math.min(own.right, other.box.right) - Math.max(own.left, other.box.left) > 0.5 &&
            Math.min(own.bottom, other.box.bottom) - Math.max(own.top, other.box.top) > 0.5
          )
            result.overlapping.push(`"${text}" over "${other.text}"`);
        drawn.push({ text, box: own });
        if (Number(getComputedStyle(piece).opacity) > 0) visibleBottom = Math.max(visibleBottom, own.bottom);
        if (own.right > bounds.right + 1 || own.left < bounds.left - 1)
          result.overflowing.push(`"${text}" ${Math.round(own.left)}..${Math.round(own.right)}`);
        if (
          piece.scrollWidth > piece.clientWidth + 1 &&
          !(piece.closest<HTMLElement>('[title]')?.title ?? '').includes(text.split(' ')[0] ?? '')
        )
          result.cutWithoutTitle.push(`"${text}" without a title`);
      }
      if (bounds.bottom > visibleBottom + 4)
        result.blankRows.push(
          `${Math.round(bounds.bottom - visibleBottom)} px below "${header.textContent}"`,
        );
    }
    return result;
  }, headers);
}

/** Every piece measured whole, inside its header, titled if cut, and no blank or shared rows. */
function expectWhole(measure: HeaderMeasure): void {
  const { broken, overflowing, cutWithoutTitle, blankRows, overlapping } = measure;
  expect({ broken, overflowing, cutWithoutTitle, blankRows, overlapping }).toEqual({
    broken: [],
    overflowing: [],
    cutWithoutTitle: [],
    blankRows: [],
    overlapping: [],
  });
}

/** Switches the page's colour scheme and waits until the app has taken it up. */
describe('message headers in a narrow transcript (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  let sessionId = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Vitest's transform may wrap functions in __name(); give the page a no-op one.
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      pageErrors,
      viewport: { width: 1024, height: 700 },
      initScript: 'window.__name = (fn) => fn;',
    }));
    ({ sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: nestedFleet(true) },
      task: 'Check the sources',
    }));
    await page.evaluate((id) => (window.location.hash = `#/sessions/${encodeURIComponent(id)}`), sessionId);
    await page
      .locator(`[data-testid="message"][data-state="streaming"][data-from="${STREAMER}"]`)
      .waitFor({ timeout: 30_000 });
  });

  afterAll(async () => {
    if (sessionId)
      await callHost(host.port, TOKEN, 'runs.control', { sessionId, action: 'stop' }).catch(() => undefined);
    await stopServed({ browser, host }, temp);
  });

  for (const width of WIDTHS)
    for (const theme of THEMES)
      it(`at ${width.name} in ${theme}: no header piece of a streaming team member breaks inside a word`, async () => {
        await page.setViewportSize(width.viewport);
        await useTheme(page, theme);
        await page.evaluate((pane) => {
          const id = 'squeeze-transcript';
          document.getElementById(id)?.remove();
          if (pane === null) return;
          const style = document.createElement('style');
          style.id = id;
          style.textContent = `.panes { grid-template-columns: minmax(0, 1fr) 7px ${pane}px !important; }`;
          document.head.append(style);
        }, width.pane);
        if (width.pane !== null) {
          const box = await page.locator('.transcript-pane').boundingBox();
          expect(Math.round(box?.width ?? 0)).toBeLessThanOrEqual(width.pane + 1);
        }
        const streaming = page.locator(`[data-testid="message"][data-from="${STREAMER}"]`);
        await expect.poll(() => streaming.getAttribute('data-state')).toBe('streaming');
        await streaming.getByTestId('message-state').waitFor();

        const measure = await measureHeaders(page, '[data-testid="message"] > header');
        // Hovered, the message shows its Fork button in the header's corner (for the picture).
        await streaming.hover();
        await shot(page, `transcript-headers-${width.name}-${theme}.png`);
        // The streaming member's pieces were among those measured: its name, kind, time and state.
        expect(measure.texts).toContain(`${STREAMER} → everyone`);
        expect(measure.texts).toContain('streaming');
        expect(measure.texts).toContain('text');
        expect(measure.pieces).toBeGreaterThanOrEqual(8);
        expectWhole(measure);
        // The long name is cut, not squeezed letter by letter, and its title holds it whole.
        const who = streaming.locator('header > .who');
        expect(await who.getAttribute('title')).toBe(`${STREAMER} → everyone`);
      });

  it("keeps the lanes' heads and row labels whole at 1024x700, light and dark", async () => {
    await page.setViewportSize(WIDTHS[0].viewport);
    await page.evaluate(() => document.getElementById('squeeze-transcript')?.remove());
    await page.getByTestId('lens-lanes').click();
    await page.locator(`[data-testid="lane"][data-agent="${STREAMER}"]`).waitFor();
    for (const theme of THEMES) {
      await useTheme(page, theme);
      const heads = await measureHeaders(page, '[data-testid="lane"]');
      const labels = await measureHeaders(page, '.lane-row .label');
      await shot(page, `transcript-headers-lanes-1024x700-${theme}.png`);
      expect(heads.texts.some((text) => text.startsWith(STREAMER))).toBe(true);
      expect(labels.pieces).toBeGreaterThan(0);
      for (const measure of [heads, labels]) {
        expect(measure.broken).toEqual([]);
        expect(measure.overflowing).toEqual([]);
        expect(measure.overlapping).toEqual([]);
      }
      expect(heads.cutWithoutTitle).toEqual([]);
    }
    await page.getByTestId('lens-graph').click();
  });

  it("keeps the compare view's message headers whole at 1024x700 and 800x700, light and dark", async () => {
    // The stopped streaming run beside one that said it all: they part at the team member's message.
    await callHost(host.port, TOKEN, 'runs.control', { sessionId, action: 'stop' });
    const quick = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet: nestedFleet(false) },
      task: 'Check the sources',
    });
    await expect
      .poll(
        async () =>
          (
            await callHost<{ summary: { status: string } }>(host.port, TOKEN, 'sessions.get', {
              id: quick.sessionId,
            })
          ).summary.status,
        { timeout: 60_000, interval: 250 },
      )
      .toBe('completed');
    await page.evaluate(() => document.getElementById('squeeze-transcript')?.remove());
    await page.evaluate(
      ([first, second]) =>
        (window.location.hash = `#/compare/${encodeURIComponent(first)}/${encodeURIComponent(second)}`),
      [sessionId, quick.sessionId] as const,
    );
    const long = page.locator('[data-testid="compare-pair"] .head > b', { hasText: STREAMER }).first();
    await long.waitFor({ timeout: 30_000 });
    for (const viewport of [WIDTHS[0].viewport, WIDTHS[2].viewport])
      for (const theme of THEMES) {
        await page.setViewportSize(viewport);
        await useTheme(page, theme);
        await long.waitFor();
        const measure = await measureHeaders(page, '[data-testid="compare-pair"] .head');
        await shot(page, `transcript-headers-compare-${viewport.width}x${viewport.height}-${theme}.png`);
        expect(measure.texts).toContain(`${STREAMER} → everyone`);
        expect(measure.pieces).toBeGreaterThanOrEqual(8);
        expectWhole(measure);
      }
  });

  it("shows the follow-up box's whole placeholder in the stopped session at 1024x700 and 800x700", async () => {
    await page.evaluate((id) => (window.location.hash = `#/sessions/${encodeURIComponent(id)}`), sessionId);
    const box = page.getByTestId('follow-up-task');
    await box.waitFor({ timeout: 30_000 });
    for (const viewport of [WIDTHS[0].viewport, WIDTHS[2].viewport])
      for (const theme of THEMES) {
        await page.setViewportSize(viewport);
        await useTheme(page, theme);
        // The height the placeholder's lines need at the box's width, from a hidden copy of its text.
        const { needed, shown, lines } = await box.evaluate((element) => {
          const area = element as HTMLTextAreaElement;
          const style = getComputedStyle(area);
          const probe = document.createElement('div');
          probe.textContent = area.placeholder;
          Object.assign(probe.style, {
            position: 'absolute',
            visibility: 'hidden',
            boxSizing: 'border-box',
            width: `${area.getBoundingClientRect().width}px`,
            font: style.font,
            lineHeight: style.lineHeight,
            letterSpacing: style.letterSpacing,
            padding: style.padding,
            border: style.border,
            whiteSpace: 'pre-wrap',
            overflowWrap: 'break-word',
          });
          document.body.append(probe);
          const needed = probe.getBoundingClientRect().height;
          const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
          const lines = Math.round(
            (needed - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / lineHeight,
          );
          probe.remove();
          return { needed, shown: area.getBoundingClientRect().height, lines };
        });
        await shot(page, `follow-up-${viewport.width}x${viewport.height}-${theme}.png`);
        expect(lines).toBeGreaterThanOrEqual(2);
        expect(shown).toBeGreaterThanOrEqual(needed - 1);
        // The box and its button stay inside the window (the panes fit beside the sidebar).
        const send = await page.getByTestId('follow-up-send').boundingBox();
        expect((send?.x ?? Infinity) + (send?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
      }
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
