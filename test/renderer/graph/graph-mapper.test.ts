import { describe, expect, it } from 'vitest';
import type { Fleet } from '@shared/domain';
import { foldFrame } from '../../../src-renderer/session/frame';
import {
  agentsOfFleet,
  edgeWidth,
  mapGraph,
  type GraphModel,
} from '../../../src-renderer/session/graph-mapper';
import { agentColor } from '../../../src-renderer/session/agent-colors';
import { EventLog } from '../session-fixture';

function agent(name: string, extra: Partial<Fleet['agents'][number]> = {}): Fleet['agents'][number] {
  return {
    name,
    type: 'scripted',
    description: '',
    role: `${name} role`,
    systemPrompt: '',
    tools: [],
    acceptedKinds: ['text'],
    receiveOwnBroadcasts: false,
    ...extra,
  };
}

function fleet(team: Fleet['team'], agents: Fleet['agents']): Fleet {
  return { version: 1, name: 'test', description: '', agents, team, layout: {} };
}

const edges = (graph: GraphModel) =>
  Object.fromEntries(
    graph.edges.map((edge) => [edge.id, { count: edge.data.count, turns: edge.data.turns }]),
  );
const node = (graph: GraphModel, id: string) => graph.nodes.find((item) => item.id === id)?.data;

describe('the session graph model', () => {
  const trio = fleet({ pattern: 'round-robin' }, [agent('optimist'), agent('skeptic'), agent('moderator')]);

  it('draws a round robin as turns in speaking order: each broadcast answered is an edge, no Everyone box', () => {
    const log = new EventLog().start(trio);
    log.say('t', 'user', '*', ['Is remote work better?'], { kind: 'task' });
    log.say('m1', 'optimist', '*', ['Yes.']);
    log.say('m2', 'skeptic', '*', ['No.']);
    log.say('m3', 'moderator', '*', ['Again.']);
    log.say('m4', 'optimist', '*', ['Still yes.']);
    const graph = mapGraph(agentsOfFleet(trio), foldFrame(log.events));
    expect(graph.nodes.map((item) => item.id)).toEqual(['optimist', 'skeptic', 'moderator']);
    expect(edges(graph)).toEqual({
      'message:moderator->optimist': { count: 1, turns: 1 },
      'message:optimist->skeptic': { count: 1, turns: 1 },
      'message:skeptic->moderator': { count: 1, turns: 1 },
    });
    expect(node(graph, 'optimist')).toMatchObject({ fromUser: 1, broadcasts: 2, speaking: true });
    expect(node(graph, 'skeptic')).toMatchObject({ fromUser: 0, broadcasts: 1, speaking: false });
    // The last broadcast pulses from its speaker to every other agent of the team.
    expect(graph.broadcast).toEqual({
      seq: expect.any(Number),
      from: 'optimist',
      to: ['skeptic', 'moderator'],
    });
  });

  it('draws the routing decisions of a selector team from the hub in its middle, not as turns', () => {
    const team = fleet({ pattern: 'selector', rules: [], allowRepeatedSpeaker: false }, [
      agent('planner'),
      agent('coder'),
    ]);
    const empty = mapGraph(agentsOfFleet(team), foldFrame(new EventLog().start(team).events));
    expect(empty.nodes.map((item) => [item.id, item.data.kind])).toEqual([
      ['planner', 'agent'],
      ['coder', 'agent'],
      ['@selector', 'hub'],
    ]);
    const log = new EventLog().start(team);
    log.say('t', 'user', '*', ['Build it'], { kind: 'task' });
    for (const [id, chosen] of [
      ['m1', 'planner'],
      ['m2', 'coder'],
      ['m3', 'planner'],
    ] as const) {
      log.add(null, {
        kind: 'routing.decision',
        payload: { candidates: ['planner', 'coder'], chosen, reason: 'rule' },
      });
      log.say(id, chosen, '*', ['done']);
    }
    const graph = mapGraph(agentsOfFleet(team), foldFrame(log.events));
    expect(edges(graph)).toEqual({
      'routing:@selector->planner': { count: 2, turns: 0 },
      'routing:@selector->coder': { count: 1, turns: 0 },
    });
    expect(node(graph, '@selector')).toMatchObject({ messages: 3 });
    expect(node(graph, 'planner')?.fromUser).toBe(1);
  });

  it('draws a swarm by its handoffs and folds tool calls into the agent that made them', () => {
    const team = fleet({ pattern: 'swarm', start: 'triage', handoffs: { triage: ['billing'] } }, [
      agent('triage'),
      agent('billing'),
    ]);
    const log = new EventLog().start(team);
    log.say('t', 'user', '*', ['Charged twice'], { kind: 'task' });
    const call = log.say('c1', 'triage', 'triage', [''], { kind: 'function' });
    call.toolCalls = [
      { id: 'x', name: 'lookup', arguments: '{}' },
      { id: 'y', name: 'files__read_text_file', arguments: '{}' },
      { id: 'z', name: 'files__list_directory', arguments: '{}' },
    ];
    log.say('r1', 'triage', 'triage', ['found'], { kind: 'tool' });
    log.say('h1', 'triage', 'billing', ['over to billing'], { kind: 'handoff' });
    log.add('triage', { kind: 'handoff', payload: { from: 'triage', to: 'billing', messageId: 'h1' } });
    log.say('m1', 'billing', '*', ['Refunded.']);
    log.say('h2', 'billing', 'user', ['back to you'], { kind: 'handoff' });
    log.add('billing', { kind: 'handoff', payload: { from: 'billing', to: 'user', messageId: 'h2' } });
    const graph = mapGraph(agentsOfFleet(team), foldFrame(log.events));
    // No self-loops for tool calls, no turn edge beside the handoff that explains the turn.
    expect(edges(graph)).toEqual({ 'handoff:triage->billing': { count: 1, turns: 0 } });
    expect(node(graph, 'triage')).toMatchObject({ toolCalls: 3, messages: 3 });
    // MCP tools (the model's `server__tool`) are counted per server for a badge each.
    expect(node(graph, 'triage')?.toolServers).toEqual([{ server: 'files', calls: 2 }]);
    expect(node(graph, 'billing')).toMatchObject({ toUser: 1 });
  });

  it('draws a traced fan-out as an edge to every worker and keeps tool calls addressed to the user on their agent', () => {
    const team = fleet({ pattern: 'sequential', order: ['lead', 'alpha', 'beta', 'merger'] }, [
      agent('lead'),
      agent('alpha'),
      agent('beta'),
      agent('merger'),
    ]);
    const log = new EventLog().start(team);
    log.say('t', 'user', 'lead', ['Pick a venue']);
    const plan = log.say('p', 'lead', 'alpha', ['Each of you: price one venue.']);
    plan.meta = { alsoTo: ['beta'] };
    // An import that addressed its tool call and result to the user: still the agent's own work.
    const call = log.say('c', 'alpha', 'user', [''], { kind: 'function' });
    call.toolCalls = [{ id: 'x', name: 'lookup', arguments: '{}' }];
    log.say('r', 'alpha', 'user', ['found'], { kind: 'tool' });
    log.say('a', 'alpha', 'merger', ['The hall: 400.']);
    log.say('b', 'beta', 'merger', ['The barn: 300.']);
    const graph = mapGraph(agentsOfFleet(team), foldFrame(log.events));
    expect(Object.keys(edges(graph)).sort()).toEqual([
      'message:alpha->merger',
      'message:beta->merger',
      'message:lead->alpha',
      'message:lead->beta',
    ]);
    expect(node(graph, 'alpha')).toMatchObject({ toolCalls: 1, toUser: 0 });
  });

  it('draws a nested team as a group holding its members, with no edges between them and the group', () => {
    const inner = fleet({ pattern: 'round-robin' }, [agent('reader'), agent('summarizer')]);
    const team = fleet({ pattern: 'sequential' }, [
      agent('lead'),
      agent('research', { type: 'team', fleet: inner }),
      agent('writer'),
    ]);
    const agents = agentsOfFleet(team);
    expect(agents.map((item) => [item.name, item.slot?.group, item.slot?.pattern])).toEqual([
      ['lead', '', 'sequential'],
      ['research', '', 'sequential'],
      ['research/reader', 'research', 'round-robin'],
      ['research/summarizer', 'research', 'round-robin'],
      ['writer', '', 'sequential'],
    ]);
    expect(agents.map((item) => item.color)).toEqual(
      agents.map((item, index) => agentColor(item.name, index)),
    );
    const log = new EventLog().start(team);
    log.say('t', 'user', 'lead', ['Why?'], { kind: 'task' });
    log.say('m1', 'lead', 'research', ['Find out']);
    log.say('m2', 'research', '*', ['Find out'], { kind: 'task' });
    log.say('m3', 'research/reader', '*', ['read']);
    log.say('m4', 'research/summarizer', '*', ['sum']);
    log.say('m5', 'research', 'writer', ['result'], { kind: 'result' });
    const graph = mapGraph(agents, foldFrame(log.events));
    expect(graph.nodes.map((item) => [item.id, item.parent, item.data.kind, item.data.name])).toEqual([
      ['lead', null, 'agent', 'lead'],
      ['research', null, 'team', 'research'],
      ['research/reader', 'research', 'agent', 'reader'],
      ['research/summarizer', 'research', 'agent', 'summarizer'],
      ['writer', null, 'agent', 'writer'],
    ]);
    expect(edges(graph)).toEqual({
      'message:lead->research': { count: 1, turns: 0 },
      'message:research->writer': { count: 1, turns: 0 },
      'message:research/reader->research/summarizer': { count: 1, turns: 1 },
    });
    // The member that took the team's task shows it got the task.
    expect(node(graph, 'research/reader')?.fromUser).toBe(1);
    // A member's broadcast reaches its team mates only.
    expect(graph.broadcast).toMatchObject({ from: 'research/summarizer', to: ['research/reader'] });
  });

  it('adds a node for a sender the fleet does not list, but none for the user or a system prompt', () => {
    const log = new EventLog().start(trio);
    log.say('s', 'system', 'optimist', ['Be nice'], { kind: 'system' });
    log.say('m1', 'stranger', 'optimist', ['hi']);
    const graph = mapGraph(agentsOfFleet(trio), foldFrame(log.events));
    expect(graph.nodes.map((item) => item.id)).toEqual(['optimist', 'skeptic', 'moderator', 'stranger']);
    expect(node(graph, 'stranger')).toMatchObject({ slot: null, color: agentColor('stranger', -1) });
    expect(edges(graph)).toEqual({ 'message:stranger->optimist': { count: 1, turns: 0 } });
  });

  it('draws many agents compact and thickens an edge with its count', () => {
    const many = fleet(
      { pattern: 'round-robin' },
      Array.from({ length: 20 }, (_, index) => agent(`a${index}`)),
    );
    const graph = mapGraph(agentsOfFleet(many), foldFrame(new EventLog().start(many).events));
    expect(graph.nodes.every((item) => item.data.compact)).toBe(true);
    expect(new Set(graph.nodes.map((item) => item.data.color)).size).toBe(20);
    expect(edgeWidth(1)).toBeLessThan(edgeWidth(4));
    expect(edgeWidth(4)).toBeLessThan(edgeWidth(40));
    expect(edgeWidth(100_000)).toBe(7);
  });

  it('reads a damaged fleet snapshot without throwing', () => {
    for (const snapshot of [
      null,
      7,
      'x',
      {},
      { agents: 'no' },
      { agents: [null, { name: 3 }, { name: 'ok' }] },
    ]) {
      const agents = agentsOfFleet(snapshot);
      expect(Array.isArray(agents)).toBe(true);
    }
    expect(agentsOfFleet({ agents: [{ name: 'ok' }], team: { pattern: 'nonsense' } })[0]?.slot?.pattern).toBe(
      'unknown',
    );
  });
});
