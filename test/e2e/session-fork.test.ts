import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';

describe('from a session to a fleet', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), { open: false }));
  });
  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('opens the fleet a sample session ran with in the builder, saved as a new fleet', async () => {
    await page.goto(host.url);
    await page.getByText('Does remote work make teams more productive?').first().click();
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('fork-fleet').click();
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/fleets\/(?!new)[\w-]+$/);
    await page.getByTestId('builder-canvas').waitFor();
    for (const agent of ['optimist', 'skeptic', 'moderator']) {
      await expect
        .poll(() => page.getByTestId('builder-canvas').getByText(agent, { exact: true }).count())
        .toBeGreaterThan(0);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'session-forked-into-builder.png') });
    await page.getByTestId('nav-fleets').click();
    await expect.poll(() => page.getByText('Debate (fork)').count()).toBeGreaterThan(0);
  });

  it('opens a fleet file dropped on the Sessions page in the builder, instead of importing it as a transcript', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('import-button').waitFor();
    const fleet = {
      version: 1,
      name: 'Dropped on sessions',
      agents: [
        { name: 'ping', type: 'scripted', script: [{ content: 'ping' }] },
        { name: 'pong', type: 'scripted', script: [{ content: 'pong' }] },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 4 },
    };
    const dataTransfer = await page.evaluateHandle((content) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], 'pair.fleet.json', { type: 'application/json' }));
      return transfer;
    }, JSON.stringify(fleet));
    const sessionsBefore = await page.getByTestId('session-row').count();
    await page.dispatchEvent('body', 'drop', { dataTransfer });
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/fleets\/(?!new)[\w-]+$/);
    await expect
      .poll(() => page.getByTestId('builder-canvas').getByText('pong', { exact: true }).count())
      .toBeGreaterThan(0);
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-row').first().waitFor();
    expect(await page.getByTestId('session-row').count()).toBe(sessionsBefore);
  });
});
