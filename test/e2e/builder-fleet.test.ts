import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, type HostProcess } from '../helpers/browser';
import { startOpenAiStub, type OpenAiStub } from '../helpers/openai-stub';
import { makeTempDir } from '../helpers/temp-dir';
import { dragMouse, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

describe('the fleet builder in Chromium', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let stub: OpenAiStub;
  let browser: ChromiumBrowser;
  let page: Page;
  let fleetId = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    stub = await startOpenAiStub();
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: 'e2e-builder-token-0123456789abcdef01234',
      pageErrors,
      open: false,
    }));
  });

  afterAll(async () => {
    await stub?.close();
    await stopServed({ browser, host }, temp);
  });

  it('configures a local OpenAI-compatible provider and lists its models', async () => {
    await page.goto(host.url);
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('provider-edit-custom').click();
    await page.getByTestId('provider-url-custom').fill(stub.baseUrl);
    await page.getByTestId('provider-model-custom').fill('stub-model');
    await page.getByTestId('provider-save-custom').click();
    await page.getByTestId('provider-test-custom').click();
    await expect.poll(() => page.getByTestId('provider-result-custom').textContent()).toContain('stub-model');
    await expect(page.getByTestId('provider-key-scripted').textContent()).resolves.toContain('no key needed');
    await page.screenshot({ path: join(ARTIFACTS, 'builder-providers.png') });
  });

  it('builds a three-agent round robin by dragging templates, connecting and editing', async () => {
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId('fleet-new').click();
    const canvas = page.getByTestId('builder-canvas');
    await canvas.waitFor();
    await page.getByTestId('canvas-hint').waitFor();
    await page.getByTestId('template-planner').dragTo(canvas, { targetPosition: { x: 260, y: 120 } });
    await page.getByTestId('template-coder').dragTo(canvas, { targetPosition: { x: 520, y: 120 } });
    await page.getByTestId('template-critic').dragTo(canvas, { targetPosition: { x: 390, y: 330 } });
    for (const name of ['planner', 'coder', 'critic']) await page.getByTestId(`agent-node-${name}`).waitFor();
    await expect(page.getByTestId('agent-node-critic').getByTestId('turn-badge').textContent()).resolves.toBe(
      '3',
    );

    // Drawing planner -> critic makes the critic speak second.
    await dragMouse(
      page,
      page.getByTestId('agent-node-planner').locator('.vue-flow__handle.source'),
      page.getByTestId('agent-node-critic').locator('.vue-flow__handle.target'),
    );
    await expect
      .poll(() => page.getByTestId('agent-node-critic').getByTestId('turn-badge').textContent())
      .toBe('2');
    await expect(page.getByTestId('agent-node-coder').getByTestId('turn-badge').textContent()).resolves.toBe(
      '3',
    );

    // Edit the coder in the inspector: a new name and prompt, on the local provider.
    await page.getByTestId('agent-node-coder').click();
    await page.getByTestId('inspector-name').fill('developer');
    await page.getByTestId('inspector-name').press('Enter');
    await page.getByTestId('agent-node-developer').waitFor();
    await page.getByTestId('inspector-prompt').fill('You write small, tested functions.');
    await expect(page.getByTestId('inspector-provider').inputValue()).resolves.toBe('custom');

    // Stop after a handful of messages.
    await page.getByTestId('agent-node-developer').click();
    await page
      .getByTestId('builder-canvas')
      .locator('.vue-flow__pane')
      .click({ position: { x: 40, y: 500 } });
    await page.getByTestId('termination-add').click();
    await page.getByTestId('condition-value-0.1').fill('4');
    await page.getByTestId('condition-value-0.1').press('Tab');
    await expect(page.getByTestId('termination-summary').textContent()).resolves.toContain('4 messages');
    await page.getByTestId('fleet-name').fill('Review loop');
    await expect
      .poll(() => page.getByTestId('save-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('saved');
    fleetId = decodeURIComponent(new URL(page.url()).hash.replace('#/fleets/', ''));
    expect(fleetId).not.toBe('new');
    await page.screenshot({ path: join(ARTIFACTS, 'builder-round-robin.png') });
  });

  it('shows validation errors on the node and in the list, disables Run, and clears them', async () => {
    await page.getByTestId('agent-node-developer').click();
    await page.getByTestId('inspector-model').fill('');
    await page.getByTestId('agent-node-developer').getByTestId('node-errors').waitFor();
    await expect(page.getByTestId('error-count').textContent()).resolves.toBe('1');
    await expect(page.getByTestId('builder-run').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('save-state').getAttribute('data-state')).resolves.toBe('invalid');
    await page.screenshot({ path: join(ARTIFACTS, 'builder-validation.png') });
    await page.getByTestId('inspector-model').fill('stub-model');
    await page.getByTestId('no-issues').waitFor();
    await expect(page.getByTestId('agent-node-developer').getByTestId('node-errors').count()).resolves.toBe(
      0,
    );
    await expect
      .poll(() => page.getByTestId('save-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('saved');
  });

  it('deletes, undoes, redoes, copies and pastes agents with the keyboard', async () => {
    const pane = page.getByTestId('builder-canvas').locator('.vue-flow__pane');
    await page.getByTestId('agent-node-critic').click();
    await pane.hover({ position: { x: 40, y: 500 } });
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('agent-node-critic').count()).toBe(0);
    await page.keyboard.press('Control+z');
    await page.getByTestId('agent-node-critic').waitFor();
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => page.getByTestId('agent-node-critic').count()).toBe(0);
    await page.keyboard.press('Control+z');
    await page.getByTestId('agent-node-critic').waitFor();
    await expect(page.getByTestId('agent-node-critic').getByTestId('turn-badge').textContent()).resolves.toBe(
      '2',
    );

    await page.getByTestId('agent-node-planner').click();
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await page.getByTestId('agent-node-planner2').waitFor();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('agent-node-planner2').count()).toBe(0);
    await page.getByTestId('no-issues').waitFor();
    await expect
      .poll(() => page.getByTestId('save-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('saved');
  });

  it('runs the fleet against the stub and opens the session', async () => {
    await expect.poll(() => page.getByTestId('builder-run').isEnabled()).toBe(true);
    await page.getByTestId('builder-run').click();
    await page.getByTestId('run-task').fill('Write a function that adds two numbers.');
    await page.getByTestId('run-start').click();
    await expect.poll(() => page.url()).toMatch(/#\/sessions\/[^/]+$/);
    await stub.waitForChatRequests(3);
    const systemPrompts = stub.chatRequests().map((request) => request.body?.messages?.[0]?.content);
    expect(systemPrompts).toContain('You write small, tested functions.');
    // The fleet stops after 4 messages: the task and one reply from each of the three agents.
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 20_000 })
      .toBe('completed');
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(4);
    await page.screenshot({ path: join(ARTIFACTS, 'builder-run-session.png') });
  });

  it('exports a fleet and imports it again identically', async () => {
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId(`fleet-row-${fleetId}`).waitFor();
    const [first] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId(`fleet-export-${fleetId}`).click(),
    ]);
    const exported = readFileSync((await first.path())!, 'utf8');
    expect(JSON.parse(exported)).toMatchObject({ name: 'Review loop', team: { pattern: 'round-robin' } });
    expect(exported).not.toContain('undefined');

    const rows = page.locator('[data-testid^="fleet-row-"]');
    const rowIds = () =>
      rows.evaluateAll((elements) =>
        elements.map((element) => element.getAttribute('data-testid')!.replace('fleet-row-', '')),
      );
    const before = await rowIds();
    await page.getByTestId('fleet-import-file').setInputFiles({
      name: 'review.fleet.json',
      mimeType: 'application/json',
      buffer: Buffer.from(exported),
    });
    await page.getByTestId('fleet-notice').waitFor();
    await expect.poll(() => rows.count()).toBe(before.length + 1);
    const importedId = (await rowIds()).find((id) => !before.includes(id))!;
    const [second] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId(`fleet-export-${importedId}`).click(),
    ]);
    expect(readFileSync((await second.path())!, 'utf8')).toBe(exported);
    await page.screenshot({ path: join(ARTIFACTS, 'builder-fleets-list.png') });
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
