import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Fleet, RunEvent } from '@shared/domain';
import { importFile } from '../../../../src-main/interop/import';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));

async function load(file: string) {
  const store = new MemorySessions();
  const result = await importFile(REAL + file, store);
  const session = store.sessions.get(result.sessionId);
  if (!session) throw new Error('not stored');
  const started = session.events.find((event) => event.kind === 'session.started');
  const fleet = (started?.kind === 'session.started' ? started.payload.fleet : null) as Fleet;
  return { result, session, events: session.events, fleet };
}

function messages(events: RunEvent[]) {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

/** Every call has exactly one result with the same id and tool name, and no result is orphaned. */
function pairs(events: RunEvent[]): Array<[string, string]> {
  const requested = events.flatMap((e) =>
    e.kind === 'tool.requested' ? [[e.payload.callId, e.payload.name] as [string, string]] : [],
  );
  const executed = events.flatMap((e) =>
    e.kind === 'tool.executed' ? [[e.payload.callId, e.payload.name] as [string, string]] : [],
  );
  expect(executed.sort()).toEqual([...requested].sort());
  expect(new Set(requested.map(([id]) => id)).size).toBe(requested.length);
  return requested;
}

describe('importing real AutoGen files', () => {
  it('a 3-agent TaskResult list keeps all 16 messages, both tool round-trips and the usage', async () => {
    const { result, session, events, fleet } = await load('autogen-history-3agents-tools-boano.json');
    expect(result).toMatchObject({ format: 'autogen-taskresult', messageCount: 16 });
    expect(messages(events)).toHaveLength(16);
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['github', 'calendar', 'timelog']);
    expect(fleet.agents[0]?.tools).toEqual(['search_repo', 'get_commits']);
    // 0.4.x results lack `name`; it is recovered from the call.
    expect(pairs(events)).toEqual([
      ['call_W3CTQYosupTqFinDE1iPFeeQ', 'search_repo'],
      ['call_PrqPCl7NBCHEirtUxRqnFxUy', 'get_commits'],
    ]);
    expect(session.summary.tokens).toBe(11964);
    expect(messages(events).filter((m) => m.from === 'user')).toHaveLength(3);
    // A group chat has no receivers: words go to everyone; tool calls and results stay on their agent.
    for (const m of messages(events))
      expect(m.to).toBe(m.toolCalls?.length || m.toolResults?.length ? m.from : '*');
    expect(session.summary.task).toBe('Please provide the timelog for the past week.');
  });

  it('a single-agent TaskResult list pairs 2 parallel calls by call id', async () => {
    const { result, events, fleet, session } = await load('autogen-history-tools-rajesh-nitc.json');
    expect(result).toMatchObject({ format: 'autogen-taskresult', messageCount: 5 });
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['assistant']);
    expect(pairs(events)).toHaveLength(2);
    const request = messages(events).find((m) => m.kind === 'function');
    const answer = messages(events).find((m) => m.kind === 'tool');
    expect(request?.toolCalls).toHaveLength(2);
    expect(answer?.parentId).toBe(request?.id);
    expect(session.summary.tokens).toBe(992);
  });

  it('a newer TeamState keeps message ids, timestamps and both writers', async () => {
    const { result, events, fleet, session } = await load('autogen-teamstate-2writers-samreen.json');
    expect(result).toMatchObject({ format: 'autogen-teamstate', messageCount: 6 });
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['Writer_1', 'Writer_2']);
    expect(fleet.team).toEqual({ pattern: 'round-robin', order: ['Writer_1', 'Writer_2'] });
    const list = messages(events);
    expect(list[0]?.id).toBe('8ce1ba59-1655-4075-91d4-04d3ff21f992');
    expect(session.summary.createdAt).toBe(Date.parse('2025-08-18T14:19:09.862884Z'));
    expect(list[5]?.t).toBe(
      Date.parse('2025-08-18T14:32:58.363216Z') - Date.parse('2025-08-18T14:19:09.862884Z'),
    );
    expect(pairs(events)).toHaveLength(0);
    expect(session.summary.tokens).toBe(457);
  });

  it('a 0.4.x TeamState uses the manager thread and names agents from `name/<team id>` keys', async () => {
    const { result, events, fleet } = await load('autogen-teamstate-3agents-tools-boano.json');
    expect(result).toMatchObject({ format: 'autogen-teamstate', messageCount: 16 });
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['github', 'calendar', 'timelog']);
    expect(pairs(events)).toHaveLength(2);
  });

  it('the single-agent TeamState matches its TaskResult twin', async () => {
    const state = await load('autogen-teamstate-tools-rajesh-nitc.json');
    const history = await load('autogen-history-tools-rajesh-nitc.json');
    expect(state.result.messageCount).toBe(5);
    expect(messages(state.events).map((m) => [m.from, m.kind, m.content])).toEqual(
      messages(history.events).map((m) => [m.from, m.kind, m.content]),
    );
    expect(pairs(state.events)).toHaveLength(2);
  });
});

describe('importing real OpenAI message arrays', () => {
  it('Swarm transfers become handoffs between inferred agents', async () => {
    const { result, events, fleet } = await load('openai-messages-swarm-handoffs-swarmjs.json');
    expect(result).toMatchObject({ format: 'openai-messages', messageCount: 14 });
    const list = messages(events);
    expect(list.filter((m) => m.from === 'user')).toHaveLength(1);
    expect(list.filter((m) => m.kind === 'tool')).toHaveLength(6);
    expect(pairs(events)).toHaveLength(6);
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['triage', 'inventory', 'refunds']);
    const handoffs = events.flatMap((e) =>
      e.kind === 'handoff' ? [`${e.payload.from}>${e.payload.to}`] : [],
    );
    expect(handoffs).toEqual(['triage>inventory', 'inventory>triage', 'triage>refunds', 'refunds>triage']);
    expect(fleet.team).toMatchObject({ pattern: 'swarm', start: 'triage' });
    expect(list.at(-1)).toMatchObject({ from: 'triage', to: 'user', kind: 'text' });
    expect(list.find((m) => m.toolCalls?.[0]?.name === 'execute_refund')?.from).toBe('refunds');
  });

  it('an Invariant test-result wrapper is unwrapped at .trace.trace', async () => {
    const { result, events, fleet, session } = await load('openai-messages-langgraph-weather-invariant.json');
    expect(result).toMatchObject({ format: 'openai-messages', messageCount: 8 });
    expect(pairs(events)).toEqual([
      ['call_5qtPj2Oy09tBCo2Chz97iIuG', '_find_weather'],
      ['call_xKhnW9J4zpXlALuxtK0Vp0kB', '_find_weather'],
    ]);
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['assistant']);
    expect(session.summary.title).toBe('test_weather_agent_with_sf_and_nyc');
    expect(messages(events).filter((m) => m.from === 'user')).toHaveLength(2);
  });

  it('tool calls and results stay on the agent that made them; only its answers go to the user', async () => {
    for (const file of [
      'openai-messages-swarm-handoffs-swarmjs.json',
      'openai-messages-langgraph-weather-invariant.json',
    ]) {
      const list = messages((await load(file)).events);
      const work = list.filter((m) => m.toolCalls?.length || m.toolResults?.length);
      expect(work.length).toBeGreaterThan(0);
      for (const m of work) expect(m.to).toBe(m.from);
      expect(list.filter((m) => m.to === 'user').every((m) => m.kind === 'text' && !m.toolCalls)).toBe(true);
    }
  });

  it('a system prompt is the configuration of the agent it was sent to, not a message', async () => {
    const temp = makeTempDir();
    try {
      const file = join(temp.dir, 'chat.json');
      writeFileSync(
        file,
        JSON.stringify([
          { role: 'system', content: 'You are a terse travel agent.' },
          { role: 'user', content: 'Book me a train to Lyon.' },
          { role: 'assistant', content: 'Booked: the 9:04 to Lyon.' },
        ]),
      );
      const store = new MemorySessions();
      const result = await importFile(file, store);
      const session = store.sessions.get(result.sessionId);
      const list = messages(session?.events ?? []);
      expect(list.map((m) => `${m.from} -> ${m.to}: ${m.content}`)).toEqual([
        'user -> assistant: Book me a train to Lyon.',
        'assistant -> user: Booked: the 9:04 to Lyon.',
      ]);
      const started = session?.events[0];
      const fleet = started?.kind === 'session.started' ? started.payload.fleet : null;
      expect(fleet?.agents[0]).toMatchObject({
        name: 'assistant',
        systemPrompt: 'You are a terse travel agent.',
      });
    } finally {
      temp.remove();
    }
  });

  it('every imported session is replayable: started first, stopped last with a stop reason', async () => {
    const { events, session } = await load('openai-messages-swarm-handoffs-swarmjs.json');
    expect(events[0]?.kind).toBe('session.started');
    expect(events.at(-1)).toMatchObject({ kind: 'session.stopped', payload: { status: 'completed' } });
    expect(session.summary.stopReason).toMatch(/OpenAI/);
    expect(session.summary.readOnly).toBe(true);
  });
});
