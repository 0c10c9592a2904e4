import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetSchema, type Fleet, type FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp, type RunHandle } from '../../../src-main/app';
import {
  startOpenAiStub,
  type OpenAiStub,
  type StubReply,
  type StubRequest,
} from '../../helpers/openai-stub';
import { agentOf, toolNames } from '../../helpers/stub-agents';
import { makeTempDir } from '../../helpers/temp-dir';

const PATTERNS = ['round-robin', 'selector', 'sequential', 'swarm', 'parallel', 'nested'] as const;
type Pattern = (typeof PATTERNS)[number];

function llm(name: string, baseUrl: string, extra: Partial<FleetInput['agents'][number]> = {}) {
  return { name, type: 'llm' as const, provider: { id: 'custom', baseUrl, model: 'stub-model' }, ...extra };
}

/** A fleet of LLM agents on the stub for each team pattern (tools and handoffs included). */
function fleetFor(pattern: Pattern, baseUrl: string): Fleet {
  const termination = { type: 'max-messages' as const, max: 400 };
  const three = [llm('ann', baseUrl, { tools: ['calculator'] }), llm('bob', baseUrl), llm('cat', baseUrl)];
  const base = { version: 1 as const, name: `resume ${pattern}`, termination };
  const teams: Record<Pattern, FleetInput> = {
    'round-robin': { ...base, agents: three, team: { pattern: 'round-robin' } },
    selector: {
      ...base,
      agents: three.map((agent, index) => ({ ...agent, description: `speaker number ${index + 1}` })),
      team: {
        pattern: 'selector',
        rules: [{ contains: 'sum', candidates: ['bob', 'cat'] }],
        selector: { id: 'custom', baseUrl, model: 'stub-selector' },
      },
    },
    sequential: { ...base, agents: [...three, llm('dan', baseUrl)], team: { pattern: 'sequential' } },
    swarm: {
      ...base,
      agents: three,
      team: { pattern: 'swarm', start: 'ann', handoffs: { ann: ['bob'], bob: ['cat'], cat: ['ann'] } },
    },
    parallel: {
      ...base,
      agents: [...three, llm('dan', baseUrl)],
      team: { pattern: 'parallel', workers: ['ann', 'bob', 'cat'], aggregator: 'dan' },
    },
    nested: {
      ...base,
      agents: [
        llm('ann', baseUrl),
        {
          name: 'crew',
          type: 'team',
          fleet: {
            version: 1,
            name: 'crew',
            agents: [llm('xia', baseUrl, { tools: ['calculator'] }), llm('yan', baseUrl)],
            team: { pattern: 'round-robin' },
            termination: { type: 'max-messages', max: 3 },
          },
        },
      ],
      team: { pattern: 'round-robin' },
    },
  };
  return fleetSchema.parse(teams[pattern]);
}

/**
 * Answers as a function of the request alone, so two runs that send the same requests get the
 * same answers: the selector picks by the length of the conversation, swarm agents hand off every
 * other time, an agent with the calculator uses it now and then.
 */
function reply(request: StubRequest): StubReply {
  const messages = request.body?.messages ?? [];
  const system = String(messages[0]?.content ?? '');
  if (system.startsWith('You pick who speaks next')) {
    const prompt = String(messages[1]?.content ?? '');
    const names = [...prompt.matchAll(/^- ([A-Za-z]+):/gm)].map((match) => match[1] as string);
    return { type: 'text', content: names[prompt.length % names.length] ?? 'ann' };
  }
  const tools = toolNames(request);
  const last = messages.at(-1);
  const transfer = tools.find((name) => name.startsWith('transfer_to_'));
  if (transfer && last?.role !== 'tool' && messages.length % 2 === 0)
    return { type: 'tools', calls: [{ name: transfer, arguments: '{}' }] };
  if (tools.includes('calculator') && last?.role !== 'tool' && messages.length % 3 === 1)
    return {
      type: 'tools',
      calls: [{ name: 'calculator', arguments: `{"expression":"${messages.length} + 1"}` }],
    };
  return {
    type: 'text',
    content: `${agentOf(request)} says ${messages.length} (sum ${messages.length % 5})`,
  };
}

/** The request as the model sees it, tool call ids aside. */
function normalize(request: StubRequest | undefined): unknown {
  if (!request?.body) return null;
  const { messages = [], ...rest } = request.body;
  return {
    ...rest,
    messages: messages.map(({ tool_call_id: _id, tool_calls, ...message }) => ({
      ...message,
      ...(Array.isArray(tool_calls)
        ? { tool_calls: tool_calls.map((call: { id?: string }) => ({ ...call, id: 'id' })) }
        : {}),
    })),
  };
}

const sorted = (requests: readonly StubRequest[]) =>
  requests.map((request) => JSON.stringify(normalize(request))).sort();

describe('resuming a stopped session sends what an uninterrupted run sends next', () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());

  /** Runs until `stopAfter` says so (then asks the run to stop after the turn); returns its requests. */
  async function runRecorded(
    start: () => RunHandle,
    stopAfter: (requests: StubRequest[], latest: StubRequest) => boolean,
  ): Promise<{ handle: RunHandle; requests: StubRequest[] }> {
    const requests: StubRequest[] = [];
    let handle: RunHandle | null = null;
    let asked = false;
    stub.respondWith((request) => {
      requests.push(request);
      if (!asked && handle && stopAfter(requests, request)) {
        asked = true;
        handle.requestStop();
      }
      return reply(request);
    });
    handle = start();
    await handle.done;
    stub.respondWith(null);
    return { handle, requests };
  }

  it.each(PATTERNS)('%s', async (pattern) => {
    const fleet = fleetFor(pattern, stub.baseUrl);
    const nested = new Set(['xia', 'yan']);
    // Short patterns end by themselves: stop them before their last round.
    const maxTurns = pattern === 'sequential' ? 3 : pattern === 'parallel' ? 2 : 12;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: maxTurns }), async (stopAt) => {
        const temp = makeTempDir();
        const dataDir = join(temp.dir, 'data');
        const open = () =>
          createApp({ dataDir, surface: 'cli', seedSamples: false, pingIntervalMs: 0, watchStore: false });
        const launch = (app: FleetscopeApp) => () =>
          app.runs.launch({ source: { parsed: fleet }, task: 'Plan a picnic for six', maxMessages: null });
        try {
          // A run stopped (at a turn's end) after a random number of model requests.
          let app = open();
          const stopped = await runRecorded(
            launch(app),
            (requests, latest) => requests.length >= stopAt && !nested.has(agentOf(latest)),
          );
          const sessionId = stopped.handle.sessionId;
          expect((await stopped.handle.done).status).toBe('stopped');
          const sent = stopped.requests.length;
          await app.close();

          // The same fleet and task, uninterrupted, until it has sent one request more.
          app = open();
          const whole = await runRecorded(launch(app), (requests) => requests.length > sent);
          // Both runs asked the same things (concurrent workers in any order).
          expect(sorted(whole.requests.slice(0, sent))).toEqual(sorted(stopped.requests));
          if (whole.requests.length <= sent) {
            await app.close();
            return;
          }
          // Another launch resumes the stopped session from the store.
          const resumed = await runRecorded(
            () => app.runs.resume({ sessionId }),
            () => true,
          );
          expect(resumed.requests.length).toBeGreaterThan(0);
          expect(normalize(resumed.requests[0])).toEqual(normalize(whole.requests[sent]));
          checked += 1;
          await app.close();
        } finally {
          temp.remove();
        }
      }),
      { numRuns: 4 },
    );
    // The property was checked, not skipped every time.
    expect(checked).toBeGreaterThan(0);
  });
});
