import { layeredPositions } from './auto-layout';
import { USER, type AgentSpec, type Fleet, type RouteRule, type TeamSpec } from '@shared/domain';
import {
  TASK_NODE_ID,
  type AgentCanvasNode,
  type AgentNodeData,
  type Canvas,
  type CanvasEdge,
  type CanvasNode,
  type Position,
} from './canvas-types';

const COLUMN = 260;
const ROW = 150;

/** Agents in turn order: the explicit order, or the agents as listed. */
export function turnOrder(fleet: Fleet): string[] {
  const team = fleet.team;
  if (team.pattern !== 'sequential' && team.pattern !== 'round-robin') return [];
  return team.order ?? fleet.agents.map((agent) => agent.name);
}

function describeRule(rule: Omit<RouteRule, 'candidates'>): string {
  const parts: string[] = [];
  if (rule.contains) parts.push(`“${rule.contains}”`);
  if (rule.kind) parts.push(`kind ${rule.kind}`);
  return parts.length === 0 ? 'always' : parts.join(' · ');
}

function badgeFor(agent: AgentSpec, team: TeamSpec): string | null {
  switch (team.pattern) {
    case 'swarm':
      return team.start === agent.name ? 'start' : null;
    case 'parallel':
      if (team.aggregator === agent.name) return 'aggregator';
      return team.workers.includes(agent.name) ? 'worker' : null;
    case 'selector':
      return team.fallback === agent.name ? 'fallback' : null;
    case 'sequential':
    case 'round-robin':
      return null;
  }
}

/** Where an agent without a saved position goes: a grid, left to right, by its index. */
export function autoPosition(index: number): Position {
  return { x: 220 + (index % 4) * COLUMN, y: 60 + Math.floor(index / 4) * ROW };
}

function edge(
  source: string,
  target: string,
  data: CanvasEdge['data'],
  extra: Partial<CanvasEdge> = {},
): CanvasEdge {
  const suffix = data.ruleIndex !== undefined ? `:${data.ruleIndex}` : '';
  return { id: `${data.kind}${suffix}:${source}->${target}`, source, target, data, ...extra };
}

function teamEdges(fleet: Fleet, names: ReadonlySet<string>): CanvasEdge[] {
  const team = fleet.team;
  const node = (name: string) => (name === USER ? TASK_NODE_ID : name);
  const known = (name: string) => names.has(name);
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin': {
      const order = turnOrder(fleet).filter(known);
      const edges: CanvasEdge[] = [];
      if (order[0]) edges.push(edge(TASK_NODE_ID, order[0], { kind: 'start' }));
      for (let index = 1; index < order.length; index++) {
        edges.push(edge(order[index - 1]!, order[index]!, { kind: 'order' }, { label: String(index + 1) }));
      }
      if (team.pattern === 'round-robin' && order.length > 1) {
        edges.push(edge(order.at(-1)!, order[0]!, { kind: 'loop' }, { label: 'repeat', animated: true }));
      }
      return edges;
    }
    case 'selector': {
      const edges: CanvasEdge[] = [];
      team.rules.forEach((rule, ruleIndex) => {
        const { candidates, ...conditions } = rule;
        const source = rule.from !== undefined && known(rule.from) ? rule.from : TASK_NODE_ID;
        for (const candidate of candidates.filter(known)) {
          edges.push(
            edge(
              source,
              candidate,
              { kind: 'route', ruleIndex, rule: conditions },
              { label: describeRule(conditions) },
            ),
          );
        }
      });
      if (team.fallback !== undefined && known(team.fallback)) {
        edges.push(edge(TASK_NODE_ID, team.fallback, { kind: 'fallback' }, { label: 'otherwise' }));
      }
      return edges;
    }
    case 'swarm': {
      const edges: CanvasEdge[] = [];
      if (known(team.start))
        edges.push(edge(TASK_NODE_ID, team.start, { kind: 'start' }, { label: 'start' }));
      for (const [source, targets] of Object.entries(team.handoffs)) {
        if (!known(source)) continue;
        for (const target of targets) {
          if (target === USER || known(target)) {
            edges.push(edge(source, node(target), { kind: 'handoff' }, { label: 'handoff', animated: true }));
          }
        }
      }
      return edges;
    }
    case 'parallel': {
      const edges: CanvasEdge[] = [];
      for (const worker of team.workers.filter(known)) {
        edges.push(edge(TASK_NODE_ID, worker, { kind: 'fan-out' }));
        if (known(team.aggregator)) edges.push(edge(worker, team.aggregator, { kind: 'fan-in' }));
      }
      return edges;
    }
  }
}

/** Draws a fleet: one node per agent (at its saved position), the task node, and the team as edges. */
export function fleetToCanvas(fleet: Fleet): Canvas {
  const names = new Set(fleet.agents.map((agent) => agent.name));
  const order = turnOrder(fleet);
  const seen = new Set<string>();
  const agentNodes: AgentCanvasNode[] = fleet.agents.map((agent, index) => {
    const saved = fleet.layout[agent.name];
    const turn = order.indexOf(agent.name);
    const data: AgentNodeData = {
      kind: 'agent',
      agent,
      turn: turn === -1 ? null : turn + 1,
      badge: badgeFor(agent, fleet.team),
      autoPlaced: saved === undefined,
    };
    // Node ids are agent names; a duplicate name (a validation error) still gets its own node.
    const id = seen.has(agent.name) ? `${agent.name}~${index}` : agent.name;
    seen.add(agent.name);
    return { id, type: 'agent', position: saved ? { ...saved } : autoPosition(index), data };
  });
  const edges = teamEdges(fleet, names);
  // A fleet with no layout at all (a hand-written file) is laid out along its team's edges.
  const layered =
    agentNodes.length > 0 && agentNodes.every((node) => node.data.autoPlaced)
      ? layeredPositions(
          [TASK_NODE_ID, ...agentNodes.map((node) => node.id)],
          edges.filter((edge) => edge.data.kind !== 'loop'),
        )
      : null;
  if (layered) for (const node of agentNodes) node.position = layered[node.id]!;
  const ys = agentNodes.map((node) => node.position.y);
  const top = ys.length === 0 ? 60 : Math.min(...ys);
  const bottom = ys.length === 0 ? 60 : Math.max(...ys);
  const left = agentNodes.length === 0 ? 220 : Math.min(...agentNodes.map((node) => node.position.x));
  const nodes: CanvasNode[] = [
    {
      id: TASK_NODE_ID,
      type: 'task',
      position: layered?.[TASK_NODE_ID] ?? { x: left - 200, y: (top + bottom) / 2 },
      data: { kind: 'task', pattern: fleet.team.pattern },
      deletable: false,
    },
    ...agentNodes,
  ];
  const strayLayout = Object.fromEntries(Object.entries(fleet.layout).filter(([name]) => !names.has(name)));
  return {
    nodes,
    edges,
    meta: {
      version: fleet.version,
      name: fleet.name,
      description: fleet.description,
      termination: fleet.termination,
      team: fleet.team,
      strayLayout,
    },
  };
}

function teamFromEdges(canvas: Canvas, agentNames: string[]): TeamSpec {
  const team = canvas.meta.team;
  const ofKind = (kind: CanvasEdge['data']['kind']) =>
    canvas.edges.filter((candidate) => candidate.data.kind === kind);
  const name = (id: string) => (id === TASK_NODE_ID ? USER : id);
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin': {
      const next = new Map(ofKind('order').map((candidate) => [candidate.source, candidate.target]));
      const chain: string[] = [];
      let current = ofKind('start')[0]?.target;
      while (current !== undefined && !chain.includes(current)) {
        chain.push(current);
        current = next.get(current);
      }
      const implicit = team.order === undefined && chain.join('\n') === agentNames.join('\n');
      return implicit ? { pattern: team.pattern } : { pattern: team.pattern, order: chain };
    }
    case 'selector': {
      const rules: RouteRule[] = [];
      for (const route of ofKind('route')) {
        const index = route.data.ruleIndex ?? rules.length;
        const rule = (rules[index] ??= { ...(route.data.rule ?? {}), candidates: [] });
        rule.candidates.push(route.target);
      }
      const fallback = ofKind('fallback')[0]?.target;
      const { rules: _rules, fallback: _fallback, ...rest } = team;
      return { ...rest, rules: rules.filter(Boolean), ...(fallback !== undefined ? { fallback } : {}) };
    }
    case 'swarm': {
      const handoffs: Record<string, string[]> = {};
      for (const [source, targets] of Object.entries(team.handoffs))
        if (targets.length === 0) handoffs[source] = [];
      for (const handoff of ofKind('handoff')) (handoffs[handoff.source] ??= []).push(name(handoff.target));
      return { pattern: 'swarm', start: ofKind('start')[0]?.target ?? team.start, handoffs };
    }
    case 'parallel': {
      const workers = ofKind('fan-out').map((fan) => fan.target);
      return { pattern: 'parallel', workers, aggregator: ofKind('fan-in')[0]?.target ?? team.aggregator };
    }
  }
}

/** Reads a fleet back from the canvas: agents in node order, positions into `layout`, team from edges. */
export function canvasToFleet(canvas: Canvas): Fleet {
  const agentNodes = canvas.nodes.filter((node): node is AgentCanvasNode => node.type === 'agent');
  const agents = agentNodes.map((node) => node.data.agent);
  const layout: Fleet['layout'] = { ...canvas.meta.strayLayout };
  for (const node of agentNodes) {
    if (!node.data.autoPlaced) layout[node.data.agent.name] = { x: node.position.x, y: node.position.y };
  }
  const fleet: Fleet = {
    version: canvas.meta.version,
    name: canvas.meta.name,
    description: canvas.meta.description,
    agents,
    team: teamFromEdges(
      canvas,
      agents.map((agent) => agent.name),
    ),
    layout,
  };
  if (canvas.meta.termination !== undefined) fleet.termination = canvas.meta.termination;
  return fleet;
}
