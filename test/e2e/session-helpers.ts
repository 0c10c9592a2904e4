import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ARTIFACTS, ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';

export type ChromiumBrowser = Awaited<ReturnType<typeof launchBrowser>>;

/** `fleetscope serve` from the build as a child process, and a Chromium page on it. */
export interface ServedApp {
  host: HostProcess;
  browser: ChromiumBrowser;
  page: Page;
}

export interface ServeOptions {
  /** The host's token (FLEETSCOPE_TOKEN), for tests that call it over the WebSocket too. */
  token?: string;
  /** Receives the page's uncaught errors (a test expects it to stay empty). */
  pageErrors?: string[];
  /** Console errors go to `pageErrors` as well, but the WebSocket's own reconnect messages. */
  consoleErrors?: boolean;
  viewport?: { width: number; height: number };
  /** Script run in every document before the app's own (e.g. a shim for evaluated code). */
  initScript?: string;
  /** Open the app and wait until its bridge is online (default); false leaves the page blank. */
  open?: boolean;
}

/**
 * Builds if needed, starts the host on `dataDir` and a fresh headless Chromium, and opens the app
 * in a page; the setup every browser test starts with. Stop it with `stopServed`.
 */
export async function serveInChromium(dataDir: string, options: ServeOptions = {}): Promise<ServedApp> {
  ensureBuilt();
  const host = await spawnHost(dataDir, options.token === undefined ? {} : { token: options.token });
  let browser: ChromiumBrowser | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    if (options.viewport) await page.setViewportSize(options.viewport);
    if (options.initScript) await page.addInitScript({ content: options.initScript });
    const errors = options.pageErrors;
    if (errors) {
      page.on('pageerror', (error) => errors.push(error.message));
      if (options.consoleErrors)
        page.on('console', (message) => {
          if (message.type() === 'error' && !/WebSocket connection/.test(message.text()))
            errors.push(message.text());
        });
    }
    if (options.open ?? true) await openApp(page, host.url);
    return { host, browser, page };
  } catch (error) {
    // The caller never receives the parts, so nothing else would stop them.
    await browser?.close();
    await host.stop();
    throw error;
  }
}

/** Closes what `serveInChromium` started (whatever part of it did start) and removes the temp folder. */
export async function stopServed(
  served: { host?: HostProcess | undefined; browser?: ChromiumBrowser | undefined },
  temp: { remove(): void },
): Promise<void> {
  await served.browser?.close();
  await served.host?.stop();
  temp.remove();
}

/**
 * `serveInChromium` for one describe block: a temp data folder, the host and the page are started
 * before its tests and stopped after them. Read the parts from the returned object inside tests.
 */
export function serveForSuite(options: ServeOptions = {}): ServedApp {
  const temp = makeTempDir();
  const parts: Partial<ServedApp> = {};
  beforeAll(async () => {
    Object.assign(parts, await serveInChromium(join(temp.dir, 'data'), options));
  });
  afterAll(() => stopServed(parts, temp));
  return {
    get host() {
      return parts.host!;
    },
    get browser() {
      return parts.browser!;
    },
    get page() {
      return parts.page!;
    },
  };
}

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

/** The two window sizes the browser tests look at a view in. */
export const SHOT_SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;

/** Switches the page's colour scheme and waits until the app has taken it on. */
export async function useTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
}

/**
 * Screenshots `name-<light|dark>-<width>.png` at 1024x700 and 1920x1080 in both schemes (`before`
 * runs after each resize), then back to light at 1280x800.
 */
export async function shootAll(
  page: Page,
  name: string,
  before?: (width: number) => Promise<void>,
): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of SHOT_SIZES) {
      await page.setViewportSize(size);
      await before?.(size.width);
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${scheme}-${size.width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
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
 * Starts `fleet` on `task` through the host's API (`runs.start`) and waits, at most `timeoutMs`,
 * until its session is no longer running: its id and the status it ended with.
 */
export async function runToEnd(
  port: number,
  token: string,
  fleet: unknown,
  task: string,
  timeoutMs = 60_000,
): Promise<{ sessionId: string; status: string }> {
  const { sessionId } = await callHost<{ sessionId: string }>(port, token, 'runs.start', {
    source: { fleet },
    task,
  });
  const statusOf = async () =>
    (await callHost<{ summary: { status: string } }>(port, token, 'sessions.get', { id: sessionId })).summary
      .status;
  await expect.poll(statusOf, { timeout: timeoutMs }).not.toBe('running');
  return { sessionId, status: await statusOf() };
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

/** Drags with real mouse events, the way a person connects two handles. */
export async function dragMouse(page: Page, from: Locator, to: Locator): Promise<void> {
  const start = await from.boundingBox();
  const end = await to.boundingBox();
  if (!start || !end) throw new Error('handle not visible');
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 12 });
  await page.mouse.up();
}
