import { describe, expect, it } from 'vitest';
import { makeSender, type Sender } from '../main/interop/otlp-in/otel-sdk';
import { callHost, serveForSuite, shot } from './session-helpers';
import { cardRects, measureGraph, openGraph, settle } from './graph-measure';

const TOKEN = 'e2e-graph-arrivals-token-0123456789abcdef';
/** Agents of a traced program: its session has no fleet, so each is new when it first speaks. */
const NAMES = ['scout', 'planner', 'booker', 'critic', 'editor', 'writer'];
const TASK = 'Plan the arrivals';

describe('the graph of a session whose agents appear as they speak (Chromium + `fleetscope serve`)', () => {
  const pageErrors: string[] = [];
  const app = serveForSuite({ token: TOKEN, pageErrors, viewport: { width: 1024, height: 700 } });

  const base = Date.now() - 60_000;
  /** One chat turn of the agent `index` (GenAI conventions), sent to the host's trace receiver. */
  async function send(sender: Sender, index: number): Promise<void> {
    const agent = NAMES[index]!;
    const text = (role: string, content: string) =>
      JSON.stringify([{ role, parts: [{ type: 'text', content }] }]);
    sender.span({
      name: 'chat gpt-4o-mini',
      start: base + index * 2_000,
      end: base + index * 2_000 + 1_000,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.agent.name': agent,
        'gen_ai.conversation.id': 'e2e-graph-arrivals',
        ...(index === 0 ? { 'gen_ai.input.messages': text('user', TASK) } : {}),
        'gen_ai.output.messages': text('assistant', `${agent} has done its part.`),
      },
    });
    await sender.flush();
  }

  /** Waits for the agent's card, then for any refit it brings (two frames on, 200 ms long) to end. */
  async function drawn(index: number): Promise<void> {
    await app.page
      .locator(`[data-testid="agent-node"][data-agent="${NAMES[index]!}"]`)
      .waitFor({ timeout: 20_000 });
    await app.page.waitForTimeout(600);
    await settle(app.page);
  }

  const sessionOf = async () =>
    (
      await callHost<{ items: Array<{ id: string; title: string }> }>(app.host.port, TOKEN, 'sessions.list', {
        limit: 100,
      })
    ).items.find((item) => item.title.includes(TASK))?.id ?? '';

  it("places each newcomer in the pane's shape, and moves no card when the newcomer shows already", async () => {
    const headers = { 'x-fleetscope-token': TOKEN };
    const endpoint = `http://127.0.0.1:${app.host.port}`;
    const sender = makeSender({ protocol: 'json', endpoint, headers, serviceName: 'arrivals' });
    try {
      await watchArrivals(sender);
    } finally {
      await sender.shutdown();
    }
  });

  async function watchArrivals(sender: Sender): Promise<void> {
    const { page } = app;
    await send(sender, 0);
    await expect.poll(sessionOf, { timeout: 20_000 }).not.toBe('');
    await openGraph(page, await sessionOf());
    await drawn(0);
    let still = 0;
    for (let index = 1; index < NAMES.length; index += 1) {
      const before = await cardRects(page);
      await send(sender, index);
      await drawn(index);
      const after = await cardRects(page);
      if (Object.entries(before).every(([id, rect]) => JSON.stringify(after[id]) === JSON.stringify(rect)))
        still += 1;
    }
    const measure = await measureGraph(page);
    await shot(page, 'graph-arrivals-1024x700-light.png');
    expect(measure.nodes).toBe(NAMES.length);
    expect([...measure.overlaps, ...measure.outside, ...measure.covered, ...measure.clipped]).toEqual([]);
    // Rows and columns in the pane's shape: not one ever longer column that shrinks every card.
    expect(measure.zoom).toBeGreaterThan(0.6);
    // A newcomer placed where the view shows already leaves every card where it was.
    expect(still).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  }
});
