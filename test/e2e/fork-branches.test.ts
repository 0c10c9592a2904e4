import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Family, SessionListItem, StoredMessage } from '@shared/contract';
import type { HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import {
  callHost,
  runExample,
  serveInChromium,
  shootAll,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';

const TOKEN = 'e2e-fork-token-0123456789abcdef0123456789';
/** Every stored message of a session, through the same channel `show` reads. */
async function messagesOf(port: number, id: string): Promise<StoredMessage[]> {
  const page = await callHost<{ items: StoredMessage[] }>(port, TOKEN, 'sessions.messages', {
    id,
    limit: 1000,
  });
  return page.items;
}

describe('fork a session at a message and move between its branches (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  let rootId = '';
  let forkId = '';

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      pageErrors,
      consoleErrors: true,
    }));
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('forks from the third message with an edited text and watches the fork run', async () => {
    rootId = await runExample(page, 'Debate', 'Does remote work make teams more productive?');
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const parent = await messagesOf(host.port, rootId);
    expect(parent.length).toBeGreaterThan(3);
    const third = parent[2]!;

    // The message's own action: hover shows it, a click opens the editor at that message.
    const item = page.locator(`[data-testid="message"][data-message-id="${third.id}"]`);
    await item.hover();
    await item.getByTestId('fork-here').click();
    const editor = page.getByTestId('fork-editor');
    await editor.waitFor();
    expect(await editor.getAttribute('data-at-message')).toBe('3');
    expect(await page.getByTestId('fork-text').inputValue()).toBe(third.content);
    const edited = 'Remote work wins outright: the studies agree and nobody misses the commute.';
    await page.getByTestId('fork-text').fill(edited);
    await page.getByTestId('fork-name').fill('Debate, bolder skeptic');
    await expect.poll(() => page.getByTestId('fork-changes').textContent()).toContain('message 3 edited');
    await shootAll(page, 'fork-editor');

    await page.getByTestId('fork-run').click();
    await editor.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('session-view').getAttribute('data-session-id'))
      .not.toBe(rootId);
    forkId = (await page.getByTestId('session-view').getAttribute('data-session-id')) ?? '';
    expect(new URL(page.url()).hash).toBe(`#/sessions/${forkId}`);
    // The fork reads through its prefix and shows the edited message, then runs on live.
    await expect
      .poll(() => page.getByTestId('transcript').textContent(), { timeout: 20_000 })
      .toContain(edited);
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const fork = await messagesOf(host.port, forkId);
    expect(fork.slice(0, 2).map((m) => m.content)).toEqual(parent.slice(0, 2).map((m) => m.content));
    expect(fork[2]).toMatchObject({ content: edited, from: third.from });
    expect(fork.length).toBeGreaterThan(3);
    await shootAll(page, 'fork-running-done');
    // The transcript shows exactly the fork's messages: none of the parent's beyond the fork point.
    await expect.poll(() => page.getByTestId('message').count()).toBe(fork.length);
  });

  it('offers F on the message under the pointer and closes the editor on Escape', async () => {
    const second = page.getByTestId('message').nth(1);
    await second.hover();
    await page.keyboard.press('f');
    const editor = page.getByTestId('fork-editor');
    await editor.waitFor();
    expect(await editor.getAttribute('data-at-message')).toBe('2');
    await page.keyboard.press('Escape');
    await editor.waitFor({ state: 'detached' });
  });

  it('forks at the replay playhead and saves the fork without running it', async () => {
    await page.getByTestId('replay-home').click();
    await page.getByTestId('replay-next').click();
    await page.getByTestId('replay-next').click();
    await page.getByTestId('replay-fork').click();
    const editor = page.getByTestId('fork-editor');
    await editor.waitFor();
    const at = Number(await editor.getAttribute('data-at-message'));
    expect(at).toBeGreaterThanOrEqual(1);
    expect(at).toBeLessThan(4);
    await page.getByTestId('fork-save').click();
    await editor.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('session-view').getAttribute('data-session-id'))
      .not.toBe(forkId);
    const savedId = (await page.getByTestId('session-view').getAttribute('data-session-id')) ?? '';
    const saved = await callHost<{ summary: SessionListItem }>(host.port, TOKEN, 'sessions.get', {
      id: savedId,
    });
    expect(saved.summary.forkOf).toEqual({ sessionId: forkId, atMessage: at });
    expect(saved.summary.status).not.toBe('running');
    expect(await messagesOf(host.port, savedId)).toHaveLength(at);
    // Saved, it waits; Run this fork goes on from the fork point in the same session.
    const run = page.getByTestId('resume-run');
    expect(await run.textContent()).toContain('Run this fork');
    await run.click();
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    expect((await messagesOf(host.port, savedId)).length).toBeGreaterThan(at);
    expect(await page.getByTestId('session-view').getAttribute('data-session-id')).toBe(savedId);
  });

  it('navigates the family tree: each branch labelled with its fork point, a click opens it', async () => {
    const family = await callHost<Family>(host.port, TOKEN, 'branches.family', { id: rootId });
    expect(family.nodes.map((node) => node.sessionId)).toContain(forkId);
    await page.getByTestId('branches-button').click();
    const popover = page.getByTestId('branches-popover');
    await popover.waitFor();
    const nodes = popover.getByTestId('family-node');
    await expect.poll(() => nodes.count()).toBe(family.nodes.length);
    const forkNode = popover.locator(`[data-testid="family-node"][data-session-id="${forkId}"]`);
    expect(await forkNode.getByTestId('family-label').textContent()).toContain('at #3');
    await shootAll(page, 'fork-family-tree');
    await popover
      .locator(`[data-testid="family-node"][data-session-id="${rootId}"]`)
      .getByTestId('family-open')
      .click();
    await expect.poll(() => page.getByTestId('session-view').getAttribute('data-session-id')).toBe(rootId);
    await page.getByTestId('branches-button').click();
    await page
      .locator(`[data-testid="family-node"][data-session-id="${forkId}"]`)
      .getByTestId('family-open')
      .click();
    await expect.poll(() => page.getByTestId('session-view').getAttribute('data-session-id')).toBe(forkId);
    expect(await page.getByTestId('fork-origin').textContent()).toContain('at #3');
  });

  it('shows the family on the sessions list: the original with its forks counted, unfolding into the tree', async () => {
    await page.getByTestId('back').click();
    const group = page.locator(`[data-testid="session-family"][data-root-id="${rootId}"]`);
    await group.waitFor();
    expect(await group.getAttribute('data-session-id')).toBe(rootId);
    expect(await group.getByTestId('family-toggle').textContent()).toMatch(/2 forks/);
    await group.getByTestId('family-toggle').click();
    await expect.poll(() => group.getByTestId('family-node').count()).toBe(3);
    await shootAll(page, 'fork-sessions-families');
    await group
      .locator(`[data-testid="family-node"][data-session-id="${forkId}"]`)
      .getByTestId('family-open')
      .click();
    await expect.poll(() => page.getByTestId('session-view').getAttribute('data-session-id')).toBe(forkId);
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
