import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TraceReceiverStatus } from '@shared/contract';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { makeSender, type Sender } from '../main/interop/otlp-in/otel-sdk';
import {
  callHost,
  shot,
  shootAll,
  serveInChromium,
  stopServed,
  type ChromiumBrowser,
} from './session-helpers';

const TOKEN = 'e2e-otel-token-0123456789abcdefghijklmnop';
const json = (value: unknown) => JSON.stringify(value);

/** One agent turn as an instrumented program records it (GenAI conventions). */
function turn(sender: Sender, agent: string, start: number, input: string | null, output: string): void {
  const call = sender.span({
    name: `chat gpt-4o-mini`,
    start,
    end: start + 1_200,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.agent.name': agent,
      'gen_ai.conversation.id': 'e2e-trip',
      ...(input
        ? { 'gen_ai.input.messages': json([{ role: 'user', parts: [{ type: 'text', content: input }] }]) }
        : {}),
      'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: output }] }]),
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 20,
    },
  });
  sender.span(
    { name: 'POST', start: start + 10, end: start + 1_100, attributes: { 'http.request.method': 'POST' } },
    call,
  );
}

describe('agents traced with OpenTelemetry appear live (Chromium + `fleetscope serve`)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  let sender: Sender;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), { token: TOKEN, pageErrors }));
    sender = makeSender({
      protocol: 'protobuf',
      endpoint: `http://127.0.0.1:${host.port}`,
      headers: { 'x-fleetscope-token': TOKEN },
      serviceName: 'trip-planner',
    });
  });

  afterAll(async () => {
    await sender?.shutdown();
    await stopServed({ browser, host }, temp);
  });

  it('a traced session shows up in the list and grows in the open session view as spans arrive', async () => {
    await page.getByTestId('nav-sessions').click();
    const base = Date.now() - 20_000;
    turn(
      sender,
      'researcher',
      base,
      'Plan a weekend in Porto',
      'Porto: Ribeira, Livraria Lello, port cellars.',
    );
    await sender.flush();
    const row = page.getByTestId('session-row').filter({ hasText: 'Plan a weekend in Porto' });
    await row.first().waitFor({ timeout: 20_000 });
    await row.first().getByTestId('open-session').click();
    await page.getByTestId('session-view').waitFor();
    await page.locator('[data-testid="agent-node"][data-agent="researcher"]').waitFor();
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(2);
    expect(await page.getByTestId('session-status').getAttribute('data-status')).toBe('running');

    turn(sender, 'writer', base + 2_000, null, 'Day 1: Ribeira and the cellars. Day 2: Lello and the coast.');
    await sender.flush();
    await page.locator('[data-testid="agent-node"][data-agent="writer"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(3);
    // Two HTTP spans and the resource's service.name have no place in a session: counted.
    await expect.poll(() => page.getByTestId('count-unmapped').textContent()).toContain('3');
    expect(await page.getByTestId('open-unmapped').getAttribute('title')).toContain('2 spans');
    // Nothing to pause or stop: the program that sends the spans runs elsewhere.
    expect(await page.getByRole('toolbar', { name: 'Run controls' }).count()).toBe(0);
    // A new agent is brought into view (the graph refits while the user has not moved it).
    const inView = async () => {
      const node = await page.locator('[data-testid="agent-node"][data-agent="writer"]').boundingBox();
      const pane = await page.locator('.vue-flow').first().boundingBox();
      return node !== null && pane !== null && node.x + node.width <= pane.x + pane.width + 1;
    };
    await expect.poll(inView, { timeout: 5_000 }).toBe(true);
    await shot(page, 'otel-live-session.png');
    await page.setViewportSize({ width: 1024, height: 700 });
    await shot(page, 'otel-live-session-1024.png');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(pageErrors).toEqual([]);
  });

  it("the header's unmapped count opens the list of what had no place in the session, and why", async () => {
    await page.getByTestId('open-unmapped').click();
    const panel = page.getByTestId('unmapped-panel');
    await panel.waitFor();
    await expect.poll(() => panel.getByTestId('unmapped-item').count()).toBe(3);
    const rows = await panel.getByTestId('unmapped-item').allTextContents();
    expect(rows.filter((row) => row.includes('POST'))).toHaveLength(2);
    expect(rows.some((row) => row.includes('resource') && row.includes('service.name'))).toBe(true);
    await shootAll(page, 'otel-unmapped');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    // Focus goes back to the count that opened it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'open-unmapped',
    );
    expect(pageErrors).toEqual([]);
  });

  it('Settings shows the two lines to paste for this host', async () => {
    await page.getByTestId('nav-settings').click();
    const lines = page.getByTestId('trace-env-lines');
    await lines.waitFor();
    expect(await lines.textContent()).toBe(
      `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${host.port}\nOTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=${TOKEN}`,
    );
    await expect
      .poll(() => page.getByTestId('trace-stats').textContent())
      .toMatch(/4 spans received · 1 sessions · 1 live/);
    await page.getByTestId('trace-receiver').scrollIntoViewIfNeeded();
    await shot(page, 'otel-settings.png');
  });

  it('Settings sets the quiet period that ends a traced session', async () => {
    const field = page.getByTestId('trace-end-quiet');
    expect(await field.inputValue()).toBe('3');
    await field.fill('5');
    await field.press('Enter');
    await field.blur();
    await expect
      .poll(
        async () =>
          (await callHost<TraceReceiverStatus>(host.port, TOKEN, 'traces.receiver', {})).endQuietSeconds,
      )
      .toBe(5);
    await shootAll(page, 'otel-settings-quiet', () =>
      page.getByTestId('trace-end-quiet').scrollIntoViewIfNeeded(),
    );
    expect(pageErrors).toEqual([]);
  });

  it('the Model calls tab shows each call as it was made, reached by keyboard, and is remembered', async () => {
    await page.getByTestId('nav-sessions').click();
    const row = page.getByTestId('session-row').filter({ hasText: 'Plan a weekend in Porto' });
    await row.first().getByTestId('open-session').click();
    await page.getByTestId('session-view').waitFor();
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(3);
    // Keyboard: focus the tab and press Enter.
    await page.getByTestId('telling-calls').focus();
    await page.keyboard.press('Enter');
    const calls = page.getByTestId('raw-call');
    await expect.poll(() => calls.count(), { timeout: 10_000 }).toBe(2);
    expect(await page.getByTestId('telling-calls').getAttribute('aria-selected')).toBe('true');
    const first = await calls.nth(0).textContent();
    expect(first).toContain('researcher');
    expect(first).toContain('Plan a weekend in Porto');
    expect(first).toContain('Porto: Ribeira, Livraria Lello, port cellars.');
    expect(first).toContain('40 in, 20 out');
    expect(await calls.nth(1).textContent()).toContain('The trace recorded no input for this call.');
    await page.setViewportSize({ width: 1024, height: 700 });
    await shot(page, 'otel-raw-calls-1024.png');
    await page.setViewportSize({ width: 1280, height: 800 });
    // Remembered across a reload; the conversation comes back with the other tab.
    await page.reload();
    await page.getByTestId('raw-call').first().waitFor({ timeout: 10_000 });
    await page.getByTestId('telling-conversation').click();
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(3);
    expect(pageErrors).toEqual([]);
  });

  it('agents invoked inside another agent’s span are drawn as its nested team', async () => {
    const base = Date.now() - 10_000;
    const conversation = { 'gen_ai.conversation.id': 'e2e-team' };
    const agentSpan = (name: string, start: number, end: number, parent?: ReturnType<Sender['span']>) =>
      sender.span(
        {
          name: `invoke_agent ${name}`,
          start,
          end,
          attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name, ...conversation },
        },
        parent,
      );
    const chat = (parent: ReturnType<Sender['span']>, start: number, input: string, output: unknown[]) =>
      sender.span(
        {
          name: 'chat gpt-4o-mini',
          start,
          end: start + 400,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.input.messages': json([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
            'gen_ai.output.messages': json([{ role: 'assistant', parts: output }]),
            ...conversation,
          },
        },
        parent,
      );
    const supervisor = agentSpan('Supervisor', base, base + 6_000);
    const task = 'Find a venue for the team offsite';
    chat(supervisor, base + 10, task, [
      { type: 'tool_call', id: 'c1', name: 'ask_Scout', arguments: { question: 'Venues near Porto?' } },
      { type: 'tool_call', id: 'c2', name: 'ask_Accountant', arguments: { question: 'Budget per head?' } },
    ]);
    for (const [index, [worker, question, answer]] of (
      [
        ['Scout', 'Venues near Porto?', 'Quinta da Pacheca and Palácio do Freixo.'],
        ['Accountant', 'Budget per head?', 'Up to 60 EUR a head.'],
      ] as const
    ).entries()) {
      const at = base + 1_000 + index * 2_000;
      const tool = sender.span(
        {
          name: `execute_tool ask_${worker}`,
          start: at,
          end: at + 1_500,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': `ask_${worker}`,
            'gen_ai.tool.call.id': `c${index + 1}`,
            'gen_ai.tool.call.result': answer,
            ...conversation,
          },
        },
        supervisor,
      );
      chat(agentSpan(worker, at + 10, at + 1_400, tool), at + 20, question, [
        { type: 'text', content: answer },
      ]);
    }
    chat(supervisor, base + 5_200, task, [{ type: 'text', content: 'Palácio do Freixo, 55 EUR a head.' }]);
    await sender.flush();
    await page.getByTestId('nav-sessions').click();
    const row = page.getByTestId('session-row').filter({ hasText: task });
    await row.first().waitFor({ timeout: 20_000 });
    await row.first().getByTestId('open-session').click();
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('lens-graph').click();
    const team = page.locator('[data-testid="team-node"][data-agent="Supervisor"]');
    await team.waitFor({ timeout: 10_000 });
    for (const worker of ['Scout', 'Accountant']) {
      const member = page.locator(`[data-testid="agent-node"][data-agent="Supervisor/${worker}"]`);
      await expect.poll(() => member.getByTestId('returns-to-team').count(), { timeout: 10_000 }).toBe(1);
      expect(await member.getByTestId('returns-to-team').textContent()).toBe('→ Supervisor');
      // Drawn inside its team's group.
      const outer = await team.boundingBox();
      const inner = await member.boundingBox();
      expect(inner && outer && inner.x >= outer.x && inner.x + inner.width <= outer.x + outer.width + 1).toBe(
        true,
      );
    }
    await expect.poll(() => page.getByTestId('message').count(), { timeout: 10_000 }).toBe(6);
    await page.setViewportSize({ width: 1024, height: 700 });
    await shot(page, 'otel-nested-team-1024.png');
    await page.getByTestId('lens-lanes').click();
    await page.locator('[data-testid="lane"][data-agent="Supervisor/Scout"]').waitFor();
    expect(
      await page
        .getByTestId('lane')
        .evaluateAll((lanes) => lanes.map((lane) => lane.getAttribute('data-agent'))),
    ).toEqual(['user', 'Supervisor', 'Supervisor/Scout', 'Supervisor/Accountant']);
    await shot(page, 'otel-nested-team-lanes-1024.png');
    await page.getByTestId('lens-graph').click();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(pageErrors).toEqual([]);
  });

  it('an agent whose open turn goes silent for long gets a badge, gone when it is heard again', async () => {
    // The page's clock is faked from a reload on, so 30 s of silence pass without waiting them.
    await browser.context.clock.install();
    await page.reload();
    await page.getByTestId('connection-state').and(page.locator('[data-state="online"]')).waitFor();
    const lookUp = (start: number, id: string) =>
      sender.span({
        name: 'chat gpt-4o-mini',
        start,
        end: start + 800,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.agent.name': 'scout',
          'gen_ai.conversation.id': 'e2e-silent',
          'gen_ai.input.messages': json([
            { role: 'user', parts: [{ type: 'text', content: 'Find a quiet café in Porto' }] },
          ]),
          // A tool call: the agent's turn stays open until the result and its answer arrive.
          'gen_ai.output.messages': json([
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id, name: 'search', arguments: { q: 'café' } }],
            },
          ]),
        },
      });
    const base = Date.now() - 5_000;
    lookUp(base, 'call-1');
    await sender.flush();
    await page.getByTestId('nav-sessions').click();
    const row = page.getByTestId('session-row').filter({ hasText: 'Find a quiet café in Porto' });
    await row.first().waitFor({ timeout: 20_000 });
    await row.first().getByTestId('open-session').click();
    const node = page.locator('[data-testid="agent-node"][data-agent="scout"]');
    await expect.poll(() => node.getAttribute('data-status'), { timeout: 10_000 }).toBe('thinking');
    const badge = node.getByTestId('silent-badge');
    expect(await badge.count(), 'not silent yet').toBe(0);

    await page.clock.fastForward(31_000);
    await badge.waitFor({ timeout: 5_000 });
    expect(await badge.textContent()).toMatch(/^silent 3\d s$/);
    expect(await badge.getAttribute('title')).toMatch(/Nothing has come from scout for 3\d s/);
    await shootAll(page, 'otel-silent-agent');
    // The lanes say it too.
    await page.getByTestId('lens-lanes').click();
    const lane = page.locator('[data-testid="lane"][data-agent="scout"]');
    await expect.poll(() => lane.getByTestId('silent-badge').textContent()).toMatch(/^silent 3\d s$/);
    await shot(page, 'otel-silent-agent-lanes.png');

    // The agent is heard from again (another call, its turn still open): the badges go.
    lookUp(base + 1_000, 'call-2');
    await sender.flush();
    await lane.getByTestId('silent-badge').waitFor({ state: 'detached', timeout: 10_000 });
    expect(await lane.getAttribute('data-status')).toBe('thinking');
    await page.getByTestId('lens-graph').click();
    await node.waitFor();
    expect(await badge.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
