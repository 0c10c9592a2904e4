import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ProviderInfo } from '@shared/contract';
import type { HostProcess } from '../helpers/browser';
import { callHost, serveForSuite, shot } from './session-helpers';

const TOKEN = 'e2e-first-hour-demos-token-0123456789abcd';

describe('keyless demos and imported sessions in the browser', () => {
  const pageErrors: string[] = [];
  const served = serveForSuite({ token: TOKEN, viewport: { width: 1024, height: 700 }, pageErrors });
  let host: HostProcess;
  let page: Page;
  beforeAll(() => {
    ({ host, page } = served);
  });

  it('builds a fleet from templates that runs on this machine and is worth watching, then ends in words', async () => {
    const { providers } = await callHost<{ providers: ProviderInfo[] }>(
      host.port,
      TOKEN,
      'providers.list',
      {},
    );
    const keyed = providers.find((provider) => !provider.builtIn && provider.keySet);
    await page.getByTestId('nav-fleets').click();
    await page.getByTestId('fleet-new').click();
    const canvas = page.getByTestId('builder-canvas');
    await page.getByTestId('canvas-hint').waitFor();
    await page.getByTestId('template-planner').dragTo(canvas, { targetPosition: { x: 80, y: 240 } });
    await page.getByTestId('template-critic').dragTo(canvas, { targetPosition: { x: 200, y: 360 } });
    const planner = page.getByTestId('agent-node-planner');
    await planner.waitFor();
    // With no key anywhere, new agents use the scripted provider, named as such.
    expect(await planner.textContent()).toContain(keyed ? `${keyed.id} · ` : 'Scripted demo');
    expect(await planner.textContent()).not.toContain('scripted · scripted');
    if (keyed) return;
    await canvas.locator('.vue-flow__pane').click({ position: { x: 12, y: 12 } });
    await page.getByTestId('fleet-name').fill('Keyless demo');
    await expect
      .poll(() => page.getByTestId('save-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('saved');
    await page.getByTestId('builder-run').click();
    await page.getByTestId('run-task').fill('Plan a small feature.');
    await page.getByTestId('run-start').click();
    await expect.poll(() => page.url()).toMatch(/#\/sessions\/[^/]+$/);
    // The demo types at a readable pace: a reply is seen half written before it is complete.
    await expect
      .poll(() => page.locator('[data-testid="message"][data-state="streaming"]').count(), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
    await shot(page, 'first-hour-keyless-demo-live.png');
    await expect
      .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    await expect(page.getByTestId('stop-reason').textContent()).resolves.toBe(
      'Finished: the scripted agents said everything they had to say',
    );
    const transcript = await page.getByTestId('transcript').textContent();
    expect(transcript).toContain('PLAN COMPLETE');
    // The Critic template's stop word is DONE, as the default is (issue 25 item 10).
    expect(transcript).toContain('DONE');
    expect(transcript).not.toMatch(/no more scripted replies|error/i);
    await shot(page, 'first-hour-keyless-demo-done.png');
  });

  it('disables "Fork as new fleet" for a conversation imported from another tool, saying why', async () => {
    await page.getByTestId('nav-sessions').click();
    const row = page.getByTestId('session-row').filter({ hasText: 'Imported OpenAI conversation' }).first();
    await row.getByTestId('open-session').click();
    await page.getByTestId('session-view').waitFor();
    const fork = page.getByTestId('fork-fleet');
    await expect.poll(() => fork.isDisabled()).toBe(true);
    const reason = await fork.locator('xpath=..').getAttribute('title');
    expect(reason).toMatch(/^Imported from another tool: .+ no model to run on/);
    expect(await page.getByText(reason ?? '').count()).toBeGreaterThan(0);
    await shot(page, 'first-hour-imported-fork-disabled.png');
  });

  it('notices a file imported before and offers to open it or import it again', async () => {
    const sample = join(process.cwd(), 'resources', 'samples', 'openai-messages-swarm-handoffs-swarmjs.json');
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-row').first().waitFor();
    const before = await page.getByTestId('session-row').count();
    // The sample sessions were imported on first launch: this very file is one of them.
    await page.getByTestId('import-file').setInputFiles(sample);
    const prompt = page.getByTestId('import-duplicate');
    await prompt.waitFor();
    expect(await prompt.textContent()).toContain(
      'was imported before, as “I would like to return a christmas tree.”',
    );
    await shot(page, 'first-hour-import-duplicate.png');
    await page.getByTestId('import-open-earlier').click();
    await page.getByTestId('session-view').waitFor();
    await expect(page.getByTestId('session-title').textContent()).resolves.toBe(
      'I would like to return a christmas tree.',
    );
    // The OpenAI format records no times: the replay is spaced at a reading pace, and says so.
    await expect(page.getByTestId('synthetic-timing').textContent()).resolves.toBe('synthetic timing');
    const clock = await page.getByTestId('replay-position').textContent();
    expect(clock).not.toMatch(/^0:00\.0 \/ 0:00\.0/);

    await page.getByTestId('back').click();
    await page.getByTestId('import-file').setInputFiles(sample);
    await prompt.waitFor();
    await page.getByTestId('import-again').click();
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('back').click();
    await expect.poll(() => page.getByTestId('session-row').count()).toBe(before + 1);
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
