import { describe, expect, it } from 'vitest';
import { fleetSchema, type Fleet, type FleetInput } from '@shared/domain';
import { canvasToFleet, fleetToCanvas } from '../../../src-renderer/builder/mapping';
import { connect, disconnect, removeAgents, renameAgent } from '../../../src-renderer/builder/fleet-edits';
import { TASK_NODE_ID } from '../../../src-renderer/builder/canvas-types';

const agents = ['planner', 'coder', 'critic', 'writer'].map((name) => ({
  name,
  type: 'scripted' as const,
  description: `${name} agent`,
  script: [{ content: `${name} says hi` }],
}));
const layout = {
  planner: { x: 0, y: 0 },
  coder: { x: 260, y: 0 },
  critic: { x: 520, y: 10 },
  writer: { x: 780.5, y: -40 },
};

function fleet(team: FleetInput['team'], extra: Partial<FleetInput> = {}): Fleet {
  return fleetSchema.parse({ version: 1, name: 'Mapped', description: 'd', agents, team, layout, ...extra });
}

const teams: Array<[string, FleetInput['team']]> = [
  ['sequential, implicit order', { pattern: 'sequential' }],
  ['round robin, explicit order', { pattern: 'round-robin', order: ['critic', 'planner', 'coder'] }],
  [
    'selector with rules, senders and a fallback',
    {
      pattern: 'selector',
      rules: [
        { contains: 'bug', candidates: ['coder', 'critic'] },
        { from: 'critic', kind: 'feedback', candidates: ['coder'] },
        { from: 'user', candidates: ['planner'] },
      ],
      fallback: 'writer',
      selector: { id: 'openai', model: 'gpt-4o-mini' },
      allowRepeatedSpeaker: true,
    },
  ],
  [
    'swarm with handoffs back to the user',
    {
      pattern: 'swarm',
      start: 'planner',
      handoffs: { planner: ['coder', 'critic'], coder: ['user'], critic: [] },
    },
  ],
  [
    'parallel fan-out and fan-in',
    { pattern: 'parallel', workers: ['planner', 'coder', 'critic'], aggregator: 'writer' },
  ],
];

describe('canvas <-> fleet mapping', () => {
  it.each(teams)('round-trips a %s fleet with no loss', (_label, team) => {
    const original = fleet(team, {
      termination: {
        type: 'or',
        conditions: [
          { type: 'text-mention', text: 'DONE', sources: ['critic'] },
          { type: 'max-messages', max: 9 },
        ],
      },
    });
    const back = canvasToFleet(fleetToCanvas(original));
    expect(back).toEqual(original);
    expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(original)));
  });

  it('puts every agent at its saved position and keeps the layout', () => {
    const canvas = fleetToCanvas(fleet({ pattern: 'sequential' }));
    const writer = canvas.nodes.find((node) => node.id === 'writer');
    expect(writer?.position).toEqual({ x: 780.5, y: -40 });
    const moved = {
      ...canvas,
      nodes: canvas.nodes.map((node) => (node.id === 'coder' ? { ...node, position: { x: 5, y: 6 } } : node)),
    };
    expect(canvasToFleet(moved).layout.coder).toEqual({ x: 5, y: 6 });
  });

  it('places agents without a position but adds no layout for them until moved', () => {
    const original = fleet({ pattern: 'sequential' }, { layout: {} });
    const canvas = fleetToCanvas(original);
    const positions = canvas.nodes
      .filter((node) => node.type === 'agent')
      .map((node) => `${node.position.x},${node.position.y}`);
    expect(new Set(positions).size).toBe(4);
    expect(canvasToFleet(canvas).layout).toEqual({});
  });

  it('gives agents with a duplicate name (a validation error) their own nodes', () => {
    const draft = fleet({ pattern: 'sequential' });
    draft.agents[1]!.name = 'planner';
    const ids = fleetToCanvas(draft).nodes.map((node) => node.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(canvasToFleet(fleetToCanvas(draft)).agents.map((agent) => agent.name)).toEqual([
      'planner',
      'planner',
      'critic',
      'writer',
    ]);
  });

  it('keeps layout entries that name no agent', () => {
    const original = fleet({ pattern: 'sequential' }, { layout: { ...layout, ghost: { x: 1, y: 2 } } });
    expect(canvasToFleet(fleetToCanvas(original)).layout.ghost).toEqual({ x: 1, y: 2 });
  });

  it('draws the meaning of each pattern', () => {
    const sequential = fleetToCanvas(fleet({ pattern: 'round-robin' }));
    expect(sequential.edges.map((edge) => `${edge.data.kind}:${edge.source}>${edge.target}`)).toEqual([
      `start:${TASK_NODE_ID}>planner`,
      'order:planner>coder',
      'order:coder>critic',
      'order:critic>writer',
      'loop:writer>planner',
    ]);
    expect(sequential.nodes.find((node) => node.id === 'critic')?.data).toMatchObject({ turn: 3 });
    const selector = fleetToCanvas(fleet(teams[2]![1]));
    expect(selector.edges.find((edge) => edge.target === 'critic')?.label).toBe('“bug”');
    const parallel = fleetToCanvas(fleet(teams[4]![1]));
    expect(
      parallel.edges.filter((edge) => edge.data.kind === 'fan-in').every((edge) => edge.target === 'writer'),
    ).toBe(true);
    expect(parallel.nodes.find((node) => node.id === 'writer')?.data).toMatchObject({ badge: 'aggregator' });
  });
});

describe('canvas gestures edit the fleet', () => {
  it('reorders a round robin by connecting', () => {
    const draft = fleet({ pattern: 'round-robin' });
    connect(draft, 'planner', 'writer');
    expect(draft.team).toEqual({ pattern: 'round-robin', order: ['planner', 'writer', 'coder', 'critic'] });
    connect(draft, TASK_NODE_ID, 'critic');
    expect(draft.team).toMatchObject({ order: ['critic', 'planner', 'writer', 'coder'] });
  });

  it('creates a handoff in a swarm and removes it with its edge', () => {
    const draft = fleet({ pattern: 'swarm', start: 'planner', handoffs: {} });
    connect(draft, 'planner', 'coder');
    connect(draft, 'coder', TASK_NODE_ID);
    expect(draft.team).toMatchObject({ handoffs: { planner: ['coder'], coder: ['user'] } });
    disconnect(draft, 'planner', 'coder', { kind: 'handoff' });
    expect(draft.team).toMatchObject({ handoffs: { planner: [], coder: ['user'] } });
  });

  it('renames an agent everywhere it is referenced', () => {
    const draft = fleet(teams[2]![1], {
      termination: { type: 'text-mention', text: 'x', sources: ['critic'] },
    });
    renameAgent(draft, 'critic', 'reviewer');
    expect(JSON.stringify(draft)).not.toContain('"critic"');
    expect(draft.layout.reviewer).toEqual(layout.critic);
  });

  it('removes a deleted agent from routes and workers', () => {
    const draft = fleet(teams[4]![1]);
    removeAgents(draft, ['coder']);
    expect(draft.team).toEqual({ pattern: 'parallel', workers: ['planner', 'critic'], aggregator: 'writer' });
    expect(draft.layout.coder).toBeUndefined();
  });
});
