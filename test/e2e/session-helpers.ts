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
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('[data-testid="agent-node"]')))
      out[node.dataset.agent ?? ''] = node.dataset.status ?? '';
    return out;
  });
}

/**
 * Calls a channel on the host over its WebSocket from the test process (for fleets the New run
 * panel does not offer, such as one with a human agent).
 */
export async function callHost<T>(
  port: number,
  token: string,
  channel: string,
  payload: unknown,
): Promise<T> {
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
    origin: `http://127.0.0.1:${port}`,
  });
  try {
    return await new Promise<T>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', epoch: null, lastSeq: 0 })));
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as {
          type: string;
          id?: number;
          result?: { ok: boolean; value?: T; error?: { message: string } };
        };
        if (frame.type === 'welcome') socket.send(JSON.stringify({ type: 'call', id: 1, channel, payload }));
        if (frame.type === 'result' && frame.id === 1) {
          if (frame.result?.ok) resolve(frame.result.value as T);
          else reject(new Error(`${channel}: ${frame.result?.error?.message}`));
        }
      });
    });
  } finally {
    socket.close();
  }
}
