import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, openApp, runExample, shot } from './session-helpers';

const TOKEN = 'e2e-session-token-0123456789abcdef012345';

describe('replay, human input and untrusted content in the session view', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'), { token: TOKEN });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await openApp(page, host.url);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  const position = async () => Number(await page.getByTestId('replay-position').getAttribute('data-seq'));
  const lastSeq = async () => Number(await page.getByTestId('replay-position').getAttribute('data-last-seq'));

  it('replays a finished session: the graph and transcript show the state at the playhead', async () => {
    await runExample(page, 'Debate', 'Replay me');
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const end = await lastSeq();
    const finalCount = await page.getByTestId('message').count();

    await page.keyboard.press('Home');
    await expect.poll(position).toBe(0);
    expect(await page.getByTestId('message').count()).toBe(0);
    await shot(page, 'session-replay-start.png');

    await page.keyboard.press('ArrowRight');
    const first = await position();
    expect(first).toBeGreaterThan(0);
    expect(await page.getByTestId('message').count()).toBe(1);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('message').count()).toBe(3);
    const messagesAtThree = await page.getByTestId('count-messages').textContent();
    expect(messagesAtThree).toBe('3');
    await shot(page, 'session-replay-third-message.png');

    await page.keyboard.press('Shift+ArrowLeft');
    expect(await position()).toBeLessThan(end);

    const scrubber = page.getByTestId('replay-scrubber');
    await scrubber.fill(String(Math.floor(end / 2)));
    await expect.poll(position).toBe(Math.floor(end / 2));
    const midCount = await page.getByTestId('message').count();
    expect(midCount).toBeGreaterThan(0);
    expect(midCount).toBeLessThanOrEqual(finalCount);
    await shot(page, 'session-replay-middle.png');

    await page.getByTestId('replay-speed').selectOption('16');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    await expect.poll(position, { timeout: 20_000 }).toBe(end);
    expect(await page.getByTestId('message').count()).toBe(finalCount);
    await page.keyboard.press('End');
    expect(await position()).toBe(end);
  });

  it('jumps between one agent’s turns with the turn picker', async () => {
    await page.getByTestId('turn-agent').selectOption('skeptic');
    const options = await page.getByTestId('turn-picker').locator('option').allTextContents();
    expect(options.length).toBeGreaterThan(2);
    await page.getByTestId('turn-picker').selectOption({ index: 2 });
    const lastSender = await page.getByTestId('message').last().getAttribute('data-from');
    expect(lastSender).toBe('skeptic');
  });

  it('shows who is asking and sends the answer to a waiting human agent', async () => {
    const fleet = {
      version: 1,
      name: 'Ask me',
      agents: [
        { name: 'bot', type: 'scripted', script: [{ content: 'What colour?' }, { content: 'Noted. DONE' }] },
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
    await page.getByTestId('human-input').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('human-asker').textContent()).toBe('me');
    await shot(page, 'session-human-waiting.png');
    await page.getByTestId('human-answer').fill('Blue');
    await page.getByTestId('human-send').click();
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 20_000 })
      .toBe('completed');
    await expect
      .poll(async () => (await page.getByTestId('message-body').allTextContents()).map((text) => text.trim()))
      .toContain('Blue');
  });

  it('renders a script or markup injection as text and runs nothing', async () => {
    const payload = [
      '<script>window.__pwned = 1</script>',
      '<img src=x onerror="window.__pwned = 2">',
      '[click me](javascript:window.__pwned=3)',
      '<a href="javascript:alert(1)">raw link</a>',
      '<svg onload="window.__pwned = 4"></svg>',
    ].join('\n\n');
    const fleet = {
      version: 1,
      name: 'Injection',
      agents: [{ name: 'mallory', type: 'scripted', script: [{ content: payload }] }],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 2 },
    };
    const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
      source: { fleet },
      task: payload,
    });
    await page.evaluate((id) => (window.location.hash = `#/sessions/${id}`), sessionId);
    await page.locator('[data-testid="message"][data-from="mallory"]').waitFor({ timeout: 15_000 });
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 20_000 })
      .toMatch(/completed|stopped/);
    const bodies = page.getByTestId('message-body');
    const text = (await bodies.allTextContents()).join('\n');
    expect(text).toContain('<script>window.__pwned = 1</script>');
    expect(text).toContain('onerror');
    const inTranscript = await page.getByTestId('transcript').evaluate((root) => ({
      scripts: root.querySelectorAll('script, iframe, object, embed, svg[onload], img').length,
      handlers: Array.from(root.querySelectorAll('*')).flatMap((element) =>
        Array.from(element.attributes)
          .filter((attribute) => attribute.name.startsWith('on'))
          .map((attribute) => attribute.name),
      ),
      jsLinks: Array.from(root.querySelectorAll('a')).filter((anchor) =>
        /^\s*javascript:/i.test(anchor.getAttribute('href') ?? ''),
      ).length,
    }));
    expect(inTranscript).toEqual({ scripts: 0, handlers: [], jsLinks: 0 });
    await page
      .getByText('click me')
      .first()
      .click()
      .catch(() => undefined);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await shot(page, 'session-injection-as-text.png');
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
