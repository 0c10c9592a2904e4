import { describe, expect, it } from 'vitest';
import { foldFrame } from '../../../../src-renderer/session/frame';
import { agentsOfFleet, mapGraph } from '../../../../src-renderer/session/graph-mapper';
import { json, mapSpans, span } from './span-builders';

const agentSpan = (id: number, parent: number | null, name: string, start: number, end: number) =>
  span(id, parent, `invoke_agent ${name}`, start, end, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': name,
  });

const chat = (id: number, parent: number, start: number, input: string, output: unknown[]) =>
  span(id, parent, 'chat gpt-4o-mini', start, start + 100, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.input.messages': json([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
    'gen_ai.output.messages': json([{ role: 'assistant', parts: output }]),
  });

const text = (content: string) => [{ type: 'text', content }];

describe('agents invoked inside another agent’s span, in the graph', () => {
  it('are drawn inside their parent’s group, got their task from it and return their result to it', () => {
    const events = mapSpans([
      agentSpan(1, null, 'Supervisor', 0, 1_000),
      chat(2, 1, 10, 'Price the venue.', [
        { type: 'tool_call', id: 'c1', name: 'ask_Researcher', arguments: { question: 'Venue prices?' } },
      ]),
      span(3, 1, 'execute_tool ask_Researcher', 200, 600, {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'ask_Researcher',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.arguments': json({ question: 'Venue prices?' }),
        'gen_ai.tool.call.result': 'About 40 EUR a head.',
      }),
      agentSpan(4, 3, 'Researcher', 210, 590),
      chat(5, 4, 220, 'Venue prices?', text('About 40 EUR a head.')),
      chat(6, 1, 700, 'Price the venue.', text('Budget 1600 EUR for forty.')),
    ]);
    const started = events.find((event) => event.kind === 'session.started');
    const fleet = started?.kind === 'session.started' ? started.payload.fleet : null;
    const agents = agentsOfFleet(fleet);
    expect(agents.map((agent) => [agent.name, agent.slot?.group, agent.slot?.isTeam])).toEqual([
      ['Supervisor', '', true],
      ['Supervisor/Researcher', 'Supervisor', false],
    ]);
    const graph = mapGraph(agents, foldFrame(events));
    expect(graph.nodes.map((node) => [node.id, node.parent, node.data.kind, node.data.name])).toEqual([
      ['Supervisor', null, 'team', 'Supervisor'],
      ['Supervisor/Researcher', 'Supervisor', 'agent', 'Researcher'],
    ]);
    const researcher = graph.nodes[1]?.data;
    // The delegation and the result: shown on the member, as a nested team's tasks are.
    expect(researcher).toMatchObject({ fromUser: 1, toTeam: 1, toUser: 0, messages: 1 });
    // The supervisor keeps its own tool call and its answer to the user.
    expect(graph.nodes[0]?.data).toMatchObject({ toolCalls: 1, toUser: 1 });
    // No edge runs between a group and its own members: the group shows that it holds them.
    expect(graph.edges).toEqual([]);
  });

  it('takes a sender hint that names a member by its own name as that member, not a stranger', () => {
    const events = mapSpans([
      agentSpan(1, null, 'Supervisor', 0, 2_000),
      chat(2, 1, 10, 'Price the venue.', text('Asking the researcher.')),
      agentSpan(3, 1, 'Researcher', 100, 300),
      chat(4, 3, 120, 'Venue prices?', text('About 40 EUR a head.')),
      // The program passes on the researcher's finding in its own words, naming its sender.
      span(5, 1, 'chat gpt-4o-mini', 700, 800, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.input.messages': json([
          { role: 'user', parts: [{ type: 'text', content: 'Price the venue.' }] },
          { role: 'user', name: 'Researcher', parts: [{ type: 'text', content: 'Forty euros per guest.' }] },
        ]),
        'gen_ai.output.messages': json([{ role: 'assistant', parts: text('Budget 1600 EUR for forty.') }]),
      }),
    ]);
    const started = events.find((event) => event.kind === 'session.started');
    const fleet = started?.kind === 'session.started' ? started.payload.fleet : null;
    expect(agentsOfFleet(fleet).map((agent) => agent.name)).toEqual(['Supervisor', 'Supervisor/Researcher']);
    const senders = events.flatMap((event) =>
      event.kind === 'message.started' && event.payload.to === 'Supervisor' ? [event.agent] : [],
    );
    expect(senders).toContain('Supervisor/Researcher');
    expect(senders).not.toContain('Researcher');
  });
});
