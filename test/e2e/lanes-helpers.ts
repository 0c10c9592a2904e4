import type { Page } from 'playwright-core';
import { callHost } from './session-helpers';

/** A stored session as the list gives it (the fields these tests read). */
export interface ListedSession {
  id: string;
  title: string;
  fleetName: string;
  messageCount: number;
  status: string;
}

/** The sessions the host holds (the seeded samples on a fresh data folder), newest first. */
export async function listSessions(port: number, token: string): Promise<ListedSession[]> {
  const { items } = await callHost<{ items: ListedSession[] }>(port, token, 'sessions.list', { limit: 100 });
  return items;
}

/** The sessions once the samples of `fleetNames` are listed (they are seeded as the host starts). */
export async function waitForSamples(
  port: number,
  token: string,
  fleetNames: string[],
): Promise<ListedSession[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const sessions = await listSessions(port, token);
    if (fleetNames.every((name) => sessions.some((session) => session.fleetName === name))) return sessions;
    if (Date.now() > deadline)
      throw new Error(`samples not seeded: ${sessions.map((session) => session.fleetName).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Opens a session by its route and waits until its log has loaded. */
export async function openSession(page: Page, id: string): Promise<void> {
  await page.evaluate((sessionId) => (window.location.hash = `#/sessions/${sessionId}`), id);
  await page.locator(`[data-testid="session-view"][data-session-id="${id}"]`).waitFor();
  await page.getByTestId('replay-position').waitFor();
  await page.getByTestId('session-loading').waitFor({ state: 'detached', timeout: 30_000 });
}

/** Switches the session view's left pane to `lens` and waits until it is drawn. */
export async function showLens(page: Page, lens: 'graph' | 'lanes'): Promise<void> {
  await page.getByTestId(`lens-${lens}`).click();
  await page.getByTestId(lens === 'graph' ? 'agent-graph' : 'lanes').waitFor();
}

/** The playhead as the replay bar shows it. */
export async function playhead(page: Page): Promise<{ seq: number; lastSeq: number }> {
  const position = page.getByTestId('replay-position');
  return {
    seq: Number(await position.getAttribute('data-seq')),
    lastSeq: Number(await position.getAttribute('data-last-seq')),
  };
}

/** Moves the playhead with the scrubber (as a drag does) and waits until the bar shows it. */
export async function seekTo(page: Page, seq: number): Promise<void> {
  await page.getByTestId('replay-scrubber').evaluate((element, target) => {
    const input = element as HTMLInputElement;
    input.value = String(target);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, seq);
  await page.locator(`[data-testid="replay-position"][data-seq="${seq}"]`).waitFor();
}

/** What one view says at the playhead, read from its DOM. */
export interface ViewReading {
  seq: number;
  statuses: Record<string, string>;
  lastMessage: string;
  lastMessageState: string;
}

/** Agent statuses from the graph's nodes, keyed by agent. */
export async function readGraph(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('[data-testid="agent-node"]')))
      if (node.dataset.agent && node.dataset.status) out[node.dataset.agent] = node.dataset.status;
    return out;
  });
}

/** The lanes' statuses and newest message at their playhead. */
export async function readLanes(page: Page): Promise<ViewReading> {
  return page.evaluate(() => {
    const root = document.querySelector<HTMLElement>('[data-testid="lanes"]');
    const statuses: Record<string, string> = {};
    for (const lane of Array.from(document.querySelectorAll<HTMLElement>('[data-testid="lane"]')))
      if (lane.dataset.agent && lane.dataset.status) statuses[lane.dataset.agent] = lane.dataset.status;
    return {
      seq: Number(root?.dataset.seq ?? -1),
      statuses,
      lastMessage: root?.dataset.lastMessage ?? '',
      lastMessageState: root?.dataset.lastMessageState ?? '',
    };
  });
}

/** The transcript's playhead and newest message. */
export async function readTranscript(page: Page): Promise<Omit<ViewReading, 'statuses'>> {
  return page.evaluate(() => {
    const root = document.querySelector<HTMLElement>('[data-testid="transcript"]');
    return {
      seq: Number(root?.dataset.seq ?? -1),
      lastMessage: root?.dataset.lastMessage ?? '',
      lastMessageState: root?.dataset.lastMessageState ?? '',
    };
  });
}
