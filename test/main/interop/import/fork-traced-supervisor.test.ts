import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkableFleet, type FleetInput } from '../../../../src-shared/domain';
import type { TraceSpan } from '../../../../src-main/interop/span-mapping/span';
import { contractApp } from '../../../helpers/contract-app';
import { startOpenAiStub, type OpenAiStub } from '../../../helpers/openai-stub';
import { promptTexts } from '../../../helpers/stub-agents';
import { json, otlpJson, span } from '../otlp-in/span-builders';

const SUPERVISOR_PROMPT = 'You are Supervisor. Ask your researchers, then give the budget in one line.';
const RESEARCHER_PROMPT = 'You are Researcher. Find what the venue costs.';
const ANALYST_PROMPT = 'You are Analyst. Work out the price per guest.';

const agentSpan = (id: number, parent: number | null, name: string, start: number, end: number) =>
  span(id, parent, `invoke_agent ${name}`, start, end, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': name,
  });

const chat = (id: number, parent: number, start: number, system: string, input: string, output: unknown[]) =>
  span(id, parent, 'chat gpt-4o-mini', start, start + 100, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.provider.name': 'openai',
    'gen_ai.system_instructions': json([{ type: 'text', content: system }]),
    'gen_ai.input.messages': json([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
    'gen_ai.output.messages': json([{ role: 'assistant', parts: output }]),
  });

const askTool = (id: number, worker: string, callId: string, start: number, end: number, result: string) =>
  span(id, 1, `execute_tool ask_${worker}`, start, end, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': `ask_${worker}`,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.call.result': result,
  });

/** A supervisor calling two sub-agents as tools inside its own agent span. */
function supervisorTrace(): TraceSpan[] {
  const text = (content: string) => [{ type: 'text', content }];
  return [
    agentSpan(1, null, 'Supervisor', 0, 2_000),
    chat(2, 1, 10, SUPERVISOR_PROMPT, 'Price the venue for forty.', [
      { type: 'tool_call', id: 'c1', name: 'ask_Researcher', arguments: { question: 'Venue price?' } },
      { type: 'tool_call', id: 'c2', name: 'ask_Analyst', arguments: { question: 'Per guest?' } },
    ]),
    askTool(3, 'Researcher', 'c1', 200, 600, 'The venue costs 1600 EUR.'),
    agentSpan(4, 3, 'Researcher', 210, 590),
    chat(5, 4, 220, RESEARCHER_PROMPT, 'Venue price?', text('The venue costs 1600 EUR.')),
    askTool(6, 'Analyst', 'c2', 700, 1_100, 'That is 40 EUR a guest.'),
    agentSpan(7, 6, 'Analyst', 710, 1_090),
    chat(8, 7, 720, ANALYST_PROMPT, 'Per guest?', text('That is 40 EUR a guest.')),
    chat(9, 1, 1_200, SUPERVISOR_PROMPT, 'Price the venue for forty.', text('Budget 1600 EUR, 40 a head.')),
  ];
}

/** Every LLM agent's provider pointed at `baseUrl`, as a person picks an endpoint in the builder. */
function onEndpoint(fleet: FleetInput, baseUrl: string): FleetInput {
  return {
    ...fleet,
    agents: fleet.agents.map((agent) => ({
      ...agent,
      ...(agent.provider ? { provider: { ...agent.provider, id: 'custom', baseUrl } } : {}),
      ...(agent.fleet ? { fleet: onEndpoint(agent.fleet, baseUrl) } : {}),
    })),
  };
}

describe('Fork as new fleet of a traced supervisor and its sub-agents', () => {
  const { call } = contractApp('suite');
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub?.close());

  it('keeps the supervisor as a lead that runs its own prompt and model on what its members said', async () => {
    const imported = await call('sessions.importData', {
      fileName: 'supervisor.json',
      content: otlpJson(supervisorTrace()),
    });
    const { fleet } = await call('sessions.get', { id: imported.sessionId });
    if (!fleet) throw new Error('The imported session has no fleet.');
    // The session's own fleet: the supervisor is its members' team, keeping its prompt and model.
    expect(fleet.agents.map((agent) => [agent.name, agent.type])).toEqual([['Supervisor', 'team']]);

    const fork = forkableFleet({ ...fleet, name: `${fleet.name} (fork)` });
    const team = fork.agents[0];
    expect(team).toMatchObject({ name: 'Supervisor', type: 'team' });
    expect(team?.systemPrompt).toBeUndefined();
    expect(team?.fleet?.team).toEqual({
      pattern: 'parallel',
      workers: ['Researcher', 'Analyst'],
      aggregator: 'Supervisor-lead',
    });
    expect(team?.fleet?.agents.map((agent) => [agent.name, agent.type, agent.systemPrompt])).toEqual([
      ['Researcher', 'llm', RESEARCHER_PROMPT],
      ['Analyst', 'llm', ANALYST_PROMPT],
      ['Supervisor-lead', 'llm', SUPERVISOR_PROMPT],
    ]);
    expect(team?.fleet?.agents[2]?.provider).toEqual({ id: 'openai', model: 'gpt-4o-mini' });

    const runnable = onEndpoint(fork, stub.baseUrl);
    const checked = await call('fleets.validate', { fleet: runnable });
    expect(checked.errors).toEqual([]);
    const saved = await call('fleets.save', { fleet: runnable });
    const { sessionId } = await call('runs.start', {
      source: { fleetId: saved.id },
      task: 'Price the venue.',
    });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 10_000 })
      .toBe('completed');

    // Each member ran its own prompt; the lead ran the supervisor's, with what the members said.
    const requests = stub.chatRequests().map(promptTexts);
    const lead = requests.filter((texts) => texts[0] === SUPERVISOR_PROMPT);
    expect(lead).toHaveLength(1);
    expect(requests.filter((texts) => texts[0] === RESEARCHER_PROMPT)).toHaveLength(1);
    expect(requests.filter((texts) => texts[0] === ANALYST_PROMPT)).toHaveLength(1);
    const messages = (await call('sessions.messages', { id: sessionId, limit: 100 })).items;
    const said = (from: string) => messages.find((message) => message.from === from)?.content ?? '';
    expect(said('Supervisor/Researcher')).not.toBe('');
    expect(lead[0]?.join('\n')).toContain(said('Supervisor/Researcher'));
    expect(lead[0]?.join('\n')).toContain(said('Supervisor/Analyst'));
    // The lead's answer is the team's reply to the user.
    const reply = messages.find((message) => message.from === 'Supervisor' && message.to === 'user');
    expect(reply?.content).toBe(said('Supervisor/Supervisor-lead'));
  });
});
