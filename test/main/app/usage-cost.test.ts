import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output } from '@shared/contract';
import { describeFigures, formatCost, type FleetInput, type TerminationSpec } from '@shared/domain';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { createPricer } from '../../../src-main/history';
import { callChecked } from '../../helpers/checked-dispatch';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { makeTempDir } from '../../helpers/temp-dir';

/**
 * Tokens, cost and time of model calls, end to end: the real stub server answers a run started
 * over the contract, the store (a real SQLite file) keeps the figures, and the contract reads
 * them back per message, per agent, per edge and in the session list.
 */

/** gpt-4o-mini from the price table: $0.15 input, $0.075 cached input, $0.60 output per M tokens. */
const MINI = { input: 0.15, cached: 0.075, output: 0.6 };
const miniCost = (prompt: number, cached: number, completion: number) =>
  ((prompt - cached) * MINI.input + cached * MINI.cached + completion * MINI.output) / 1_000_000;

describe('usage and cost of model calls', () => {
  let stub: OpenAiStub;
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;

  const call = <C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> =>
    callChecked(app.dispatcher, channel, input, { surface: 'cli' });
  const pair = (model: string, termination?: TerminationSpec): FleetInput => ({
    version: 1,
    name: 'Pair',
    agents: [
      { name: 'alice', type: 'llm', provider: { id: 'custom', baseUrl: stub.baseUrl, model } },
      { name: 'bob', type: 'llm', provider: { id: 'custom', baseUrl: stub.baseUrl, model } },
    ],
    team: { pattern: 'round-robin' },
    termination: termination ?? { type: 'max-messages', max: 3 },
  });
  async function runToEnd(fleet: FleetInput): Promise<string> {
    const { sessionId } = await call('runs.start', { source: { fleet }, task: 'Plan the trip' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 10_000 })
      .not.toMatch(/running|paused|waiting/);
    return sessionId;
  }
  const replies = async (id: string) =>
    (await call('sessions.messages', { id, limit: 100 })).items.filter((message) => message.from !== 'user');

  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    temp = makeTempDir();
    stub.requests.length = 0;
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'cli',
      pingIntervalMs: 0,
      seedSamples: false,
      watchStore: false,
    });
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('keeps streamed usage with cached and reasoning tokens, model, timing and cost, and folds it per agent', async () => {
    stub.enqueue(
      {
        type: 'text',
        content: 'Rome first.',
        usage: { prompt: 1000, completion: 200, cached: 400, reasoning: 50 },
      },
      { type: 'text', content: 'Then Florence.', usage: { prompt: 1500, completion: 100, cached: 0 } },
    );
    const id = await runToEnd(pair('gpt-4o-mini', { type: 'max-messages', max: 3 }));
    // Streamed replies ask for usage.
    expect(stub.chatRequests().every((request) => request.body?.stream_options?.include_usage === true)).toBe(
      true,
    );
    const [first, second] = await replies(id);
    expect(first?.usage).toMatchObject({
      prompt: 1000,
      completion: 200,
      cached: 400,
      reasoning: 50,
      model: 'gpt-4o-mini',
    });
    expect(first?.usage?.cost).toBeCloseTo(miniCost(1000, 400, 200), 12);
    expect(first?.usage?.firstTokenMs).toBeGreaterThanOrEqual(0);
    expect(first?.usage?.durationMs).toBeGreaterThanOrEqual(first?.usage?.firstTokenMs ?? 0);
    expect(second?.usage?.cost).toBeCloseTo(miniCost(1500, 0, 100), 12);

    const usage = await call('sessions.usage', { id });
    const expected = miniCost(1000, 400, 200) + miniCost(1500, 0, 100);
    expect(usage.total).toMatchObject({
      calls: 2,
      inputTokens: 2500,
      outputTokens: 300,
      cachedTokens: 400,
      reasoningTokens: 50,
      unpricedCalls: 0,
    });
    expect(usage.total.cost).toBeCloseTo(expected, 12);
    expect(usage.agents.map((agent) => [agent.name, agent.figures.calls]).sort()).toEqual([
      ['alice', 1],
      ['bob', 1],
    ]);
    // Every call is on exactly one edge: the sums over edges are the total.
    expect(usage.edges.reduce((sum, edge) => sum + edge.figures.calls, 0)).toBe(2);
    expect(usage.edges.reduce((sum, edge) => sum + edge.figures.cost, 0)).toBeCloseTo(expected, 12);
    expect(usage.edges.map((edge) => edge.to).sort()).toEqual(['alice', 'bob']);

    const { summary } = await call('sessions.get', { id });
    expect(summary.cost).toBeCloseTo(expected, 12);
    expect(summary.unpricedCalls).toBe(0);
    expect(summary.tokens).toBe(2800);
  });

  it('keeps the usage of a whole (not streamed) reply', async () => {
    stub.enqueue(
      {
        type: 'text',
        content: 'All at once.',
        ignoreStream: true,
        usage: { prompt: 80, completion: 20, reasoning: 5 },
      },
      { type: 'text', content: 'Also whole.', ignoreStream: true, usage: { prompt: 90, completion: 10 } },
    );
    const id = await runToEnd(pair('gpt-4o-mini'));
    const [first] = await replies(id);
    expect(first?.usage).toMatchObject({ prompt: 80, completion: 20, reasoning: 5, model: 'gpt-4o-mini' });
    expect(first?.usage?.cost).toBeCloseTo(miniCost(80, 0, 20), 12);
  });

  it('records nothing for a provider that reports no usage, and counts nothing as unpriced', async () => {
    stub.enqueue(
      { type: 'text', content: 'No counts.', usage: 'none' },
      { type: 'text', content: 'None here either.', usage: 'none', ignoreStream: true },
    );
    const id = await runToEnd(pair('gpt-4o-mini'));
    const messages = await replies(id);
    expect(messages.map((message) => message.usage)).toEqual([undefined, undefined]);
    const usage = await call('sessions.usage', { id });
    expect(usage.total.calls).toBe(0);
    expect(usage.total.unpricedCalls).toBe(0);
    expect((await call('sessions.get', { id })).summary.tokens).toBe(0);
  });

  it('never shows a total with calls of a model without a price as complete', async () => {
    stub.enqueue(
      { type: 'text', content: 'Local answer.', usage: { prompt: 50, completion: 10 } },
      { type: 'text', content: 'Another.', usage: { prompt: 60, completion: 10 } },
    );
    const id = await runToEnd(pair('my-own-finetune-7b'));
    const [first] = await replies(id);
    expect(first?.usage?.cost).toBeNull();
    const usage = await call('sessions.usage', { id });
    expect(usage.total).toMatchObject({ calls: 2, cost: 0, unpricedCalls: 2 });
    expect(formatCost(usage.total)).toBe('2 calls without a price');
    const { summary } = await call('sessions.get', { id });
    expect(summary.unpricedCalls).toBe(2);
  });

  it('prices by the overrides in Settings before the table (a local model at 0, a custom price)', async () => {
    await call('settings.set', {
      priceOverrides: [
        { provider: 'custom', model: '*', inputPerMTok: 0, outputPerMTok: 0 },
        { provider: 'custom', model: 'gpt-4o-mini', inputPerMTok: 10, outputPerMTok: 20 },
      ],
    });
    stub.enqueue(
      { type: 'text', content: 'Priced.', usage: { prompt: 1000, completion: 1000 } },
      { type: 'text', content: 'Priced too.', usage: { prompt: 1000, completion: 1000 } },
    );
    const priced = await runToEnd(pair('gpt-4o-mini'));
    expect((await call('sessions.usage', { id: priced })).total.cost).toBeCloseTo(0.06, 12);
    stub.enqueue({ type: 'text', content: 'Free.', usage: { prompt: 5, completion: 5 } });
    const free = await runToEnd(pair('llama3', { type: 'max-messages', max: 2 }));
    const usage = await call('sessions.usage', { id: free });
    expect(usage.total).toMatchObject({ cost: 0, unpricedCalls: 0 });
    expect(formatCost(usage.total)).toBe('$0.00');

    // The session list sorts by cost, most expensive first, and by tokens.
    const byCost = await call('sessions.list', { sort: 'cost' });
    expect(byCost.items.map((item) => item.id)).toEqual([priced, free]);
    const byTokens = await call('sessions.list', { sort: 'tokens' });
    expect(byTokens.items[0]?.id).toBe(priced);
  });

  it("prices imported OpenAI messages and traces by Settings' overrides, then the table", async () => {
    await call('settings.set', {
      priceOverrides: [
        { provider: 'openai', model: 'my-local-7b', inputPerMTok: 0, outputPerMTok: 0 },
        { provider: '*', model: 'mistral/mistral-small-latest', inputPerMTok: 1, outputPerMTok: 2 },
      ],
    });
    // An OpenAI message list whose logger kept each reply's usage (the file's model by default).
    const conversation = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Plan the trip' },
        {
          role: 'assistant',
          content: 'Rome first.',
          usage: {
            prompt_tokens: 1000,
            completion_tokens: 200,
            prompt_tokens_details: { cached_tokens: 400 },
            completion_tokens_details: { reasoning_tokens: 50 },
          },
        },
        { role: 'user', content: 'And then?' },
        {
          role: 'assistant',
          content: 'Florence.',
          model: 'my-local-7b',
          usage: { input_tokens: 80, output_tokens: 9 },
        },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'You are welcome.' },
      ],
    };
    const imported = await call('sessions.importData', {
      fileName: 'conversation.json',
      content: JSON.stringify(conversation),
    });
    const [rome, florence, welcome] = await replies(imported.sessionId);
    expect(rome?.usage).toMatchObject({
      prompt: 1000,
      completion: 200,
      cached: 400,
      reasoning: 50,
      model: 'gpt-4o-mini',
    });
    expect(rome?.usage?.cost).toBeCloseTo(miniCost(1000, 400, 200), 12);
    expect(florence?.usage).toMatchObject({ prompt: 80, completion: 9, model: 'my-local-7b', cost: 0 });
    expect(welcome?.usage).toBeUndefined();
    const usage = await call('sessions.usage', { id: imported.sessionId });
    expect(usage.total).toMatchObject({ calls: 2, unpricedCalls: 0 });
    expect(usage.total.cost).toBeCloseTo(miniCost(1000, 400, 200), 12);

    // A trace from another framework: its model's price for any provider applies.
    const trace = readFileSync(
      join(import.meta.dirname, '../../fixtures/real/anyagent-openai-agents-genai-semconv-trace.json'),
      'utf8',
    );
    const received = await call('sessions.importData', { fileName: 'trace.json', content: trace });
    const calls = (await replies(received.sessionId)).filter((message) => message.usage);
    expect(calls.length).toBeGreaterThan(0);
    const tokens = calls.reduce(
      (sum, message) => ({
        prompt: sum.prompt + message.usage!.prompt,
        completion: sum.completion + message.usage!.completion,
      }),
      { prompt: 0, completion: 0 },
    );
    const traced = await call('sessions.usage', { id: received.sessionId });
    expect(traced.total.unpricedCalls).toBe(0);
    expect(traced.total.cost).toBeCloseTo((tokens.prompt * 1 + tokens.completion * 2) / 1_000_000, 12);
  });

  it('prices an import by overrides another app saved on the same data folder, without a restart', async () => {
    // Two different files (the same one twice would answer with the first session).
    const importOnce = async (task: string) => {
      const content = JSON.stringify({
        model: 'house-7b',
        messages: [
          { role: 'user', content: task },
          {
            role: 'assistant',
            content: 'Rome first.',
            usage: { prompt_tokens: 1000, completion_tokens: 100 },
          },
        ],
      });
      const { sessionId } = await call('sessions.importData', { fileName: 'trip.json', content });
      return (await call('sessions.usage', { id: sessionId })).total;
    };
    expect(await importOnce('Plan the trip')).toMatchObject({ calls: 1, unpricedCalls: 1 });
    // A second app (the desktop app beside this CLI, say) on the same folder saves a price.
    const other = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'cli',
      pingIntervalMs: 0,
      seedSamples: false,
      watchStore: false,
    });
    try {
      await callChecked(
        other.dispatcher,
        'settings.set',
        { priceOverrides: [{ provider: '*', model: 'house-7b', inputPerMTok: 2, outputPerMTok: 10 }] },
        { surface: 'cli' },
      );
    } finally {
      await other.close();
    }
    const after = await importOnce('Plan the trip again');
    expect(after).toMatchObject({ calls: 1, unpricedCalls: 0 });
    expect(after.cost).toBeCloseTo((1000 * 2 + 100 * 10) / 1_000_000, 12);
  });

  it('shows the same figures in the store, the CLI, every export and OTLP, and reads them back from OTLP', async () => {
    stub.enqueue(
      {
        type: 'text',
        content: 'Rome.',
        usage: { prompt: 1200, completion: 300, cached: 200, reasoning: 40 },
      },
      { type: 'text', content: 'Florence.', usage: { prompt: 900, completion: 100 } },
    );
    const id = await runToEnd(pair('gpt-4o-mini'));
    const usage = await call('sessions.usage', { id });
    const cost = formatCost(usage.total);
    expect(cost).toBe(`$${(miniCost(1200, 200, 300) + miniCost(900, 0, 100)).toPrecision(2)}`);
    const exported = async (format: 'md' | 'html' | 'json' | 'otlp') =>
      readFileSync((await call('sessions.export', { id, format })).path, 'utf8');

    expect(await exported('md')).toContain(`| Cost | ${cost} |`);
    expect(await exported('md')).toContain('1200 in (200 cached), 300 out (40 reasoning), gpt-4o-mini');
    expect(await exported('html')).toContain(
      `${usage.total.inputTokens + usage.total.outputTokens} tokens · ${cost}`,
    );
    const json = JSON.parse(await exported('json')) as { session: { cost: number; unpricedCalls: number } };
    expect(json.session.cost).toBeCloseTo(usage.total.cost, 12);
    expect(json.session.unpricedCalls).toBe(0);

    const otlp = await exported('otlp');
    const spans = (
      JSON.parse(otlp) as {
        resourceSpans: Array<{
          scopeSpans: Array<{
            spans: Array<{ attributes: Array<{ key: string; value: Record<string, unknown> }> }>;
          }>;
        }>;
      }
    ).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans));
    const sum = (key: string) =>
      spans.reduce((total, span) => {
        const value = span.attributes.find((attribute) => attribute.key === key)?.value;
        return total + Number(value?.intValue ?? value?.doubleValue ?? 0);
      }, 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(usage.total.inputTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(usage.total.outputTokens);
    expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(200);
    expect(sum('fleetscope.usage.reasoning_tokens')).toBe(40);
    expect(sum('fleetscope.usage.cost_usd')).toBeCloseTo(usage.total.cost, 12);

    // The OTLP file imported again: the same tokens and cost.
    const imported = await call('sessions.importData', { fileName: 'trace.json', content: otlp });
    const again = await call('sessions.usage', { id: imported.sessionId });
    expect(again.total).toMatchObject({
      calls: 2,
      inputTokens: usage.total.inputTokens,
      outputTokens: usage.total.outputTokens,
      cachedTokens: 200,
      reasoningTokens: 40,
      unpricedCalls: 0,
    });
    expect(again.total.cost).toBeCloseTo(usage.total.cost, 12);

    // The CLI, on the same data folder.
    await app.close();
    const io = captureIo();
    expect(await runCli(['show', id, '--data-dir', join(temp.dir, 'data')], io)).toBe(0);
    const shown = io.stdout.join('\n');
    expect(shown).toContain(`Usage: ${describeFigures(usage.total)}`);
    expect(shown).toContain(`| ${cost} |`);
    const listed = captureIo();
    expect(await runCli(['sessions', '--sort', 'cost', '--data-dir', join(temp.dir, 'data')], listed)).toBe(
      0,
    );
    expect(listed.stdout.join('\n')).toContain(cost);
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'cli',
      pingIntervalMs: 0,
      seedSamples: false,
      watchStore: false,
    });
  });

  /** The pair on gpt-4o-mini, stopped by `budget` (or, failing it, at 40 messages). */
  const budgeted = (budget: TerminationSpec) =>
    pair('gpt-4o-mini', { type: 'or', conditions: [budget, { type: 'max-messages', max: 40 }] });

  it('stops a run at its cost budget, named in the stop reason', async () => {
    // Each reply costs miniCost(10000, 0, 1000) = $0.0021; the budget is passed at the third.
    stub.respondWith(() => ({ type: 'text', content: 'More.', usage: { prompt: 10_000, completion: 1000 } }));
    try {
      const id = await runToEnd(budgeted({ type: 'cost-budget', maxCost: 0.005 }));
      const { summary } = await call('sessions.get', { id });
      expect(summary.stopReason).toBe('cost-budget');
      expect((await replies(id)).length).toBe(3);
      expect(summary.cost).toBeCloseTo(3 * miniCost(10_000, 0, 1000), 12);
    } finally {
      stub.respondWith(null);
    }
  });

  it('stops a run when one agent reaches its token budget', async () => {
    stub.respondWith(() => ({ type: 'text', content: 'Talk.', usage: { prompt: 100, completion: 50 } }));
    try {
      const id = await runToEnd(budgeted({ type: 'agent-token-budget', maxTokens: 300, agents: ['bob'] }));
      const { summary } = await call('sessions.get', { id });
      expect(summary.stopReason).toBe('agent-token-budget');
      // bob reaches 300 tokens with his second reply, the fourth message.
      expect((await replies(id)).map((message) => message.from)).toEqual(['alice', 'bob', 'alice', 'bob']);
    } finally {
      stub.respondWith(null);
    }
  });
});

describe('the price table', () => {
  it('has no price for an unknown model and prices a known one offline', () => {
    const price = createPricer();
    expect(price({ prompt: 1_000_000, completion: 0, model: 'no-such-model-anywhere' })).toBeNull();
    expect(price({ prompt: 1_000_000, completion: 0 })).toBeNull();
    expect(price({ prompt: 1_000_000, completion: 0, model: 'gpt-4o-mini' })).toBeCloseTo(MINI.input, 9);
  });
});
