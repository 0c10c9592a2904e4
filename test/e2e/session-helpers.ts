import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS } from '../helpers/browser';

/** Opens the app and waits until the bridge is online. */
export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
}

/** Starts a run of an example fleet from the New run panel; resolves once the session view is open. */
export async function runExample(page: Page, fleetName: string, task: string): Promise<string> {
  await page.getByTestId('nav-sessions').click();
  const select = page.getByTestId('fleet-select');
  await select.locator('option', { hasText: fleetName }).first().waitFor({ state: 'attached' });
  const value = await select.locator('option', { hasText: fleetName }).first().getAttribute('value');
  await select.selectOption(value ?? '');
  await page.getByTestId('task-input').fill(task);
  await page.getByTestId('run-button').click();
  await page.getByTestId('session-view').waitFor();
  return (await page.getByTestId('session-view').getAttribute('data-session-id')) ?? '';
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, name) });
}

/** The status text each agent node shows, by agent id. */
export async function nodeStatuses(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const node of document.querySelectorAll<HTMLElement>('[data-testid="agent-node"]')) out[node.dataset.agent ?? ''] = node.dataset.status ?? '';
    return out;
  });
}
