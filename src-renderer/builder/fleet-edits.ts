import { USER, type AgentSpec, type Fleet, type TeamSpec, type TerminationSpec } from '@shared/domain';
import { TASK_NODE_ID, type CanvasEdgeData, type Position } from './canvas-types';
import { turnOrder } from './mapping';

/**
 * Edits of a fleet draft, one function per user gesture. Each mutates the draft it is given
 * (the builder store passes a copy and keeps the original for undo).
 */

export function uniqueName(fleet: Fleet, base: string): string {
  const taken = new Set(fleet.agents.map((agent) => agent.name));
  const clean = base.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[^A-Za-z]+/, '') || 'agent';
  if (!taken.has(clean)) return clean;
  for (let n = 2; ; n++) if (!taken.has(`${clean}${n}`)) return `${clean}${n}`;
}

export function addAgent(fleet: Fleet, agent: AgentSpec, position: Position): void {
  fleet.agents.push(agent);
  fleet.layout[agent.name] = { x: Math.round(position.x), y: Math.round(position.y) };
  const team = fleet.team;
  if ((team.pattern === 'sequential' || team.pattern === 'round-robin') && team.order)
    team.order.push(agent.name);
  if (team.pattern === 'swarm' && !fleet.agents.some((candidate) => candidate.name === team.start))
    team.start = agent.name;
  if (team.pattern === 'parallel') {
    if (!fleet.agents.some((candidate) => candidate.name === team.aggregator)) team.aggregator = agent.name;
    else team.workers.push(agent.name);
  }
}

/** Removes agents and every list entry naming them; single references are left for the validator to flag. */
export function removeAgents(fleet: Fleet, names: readonly string[]): void {
  const gone = new Set(names);
  fleet.agents = fleet.agents.filter((agent) => !gone.has(agent.name));
  for (const name of names) delete fleet.layout[name];
  const team = fleet.team;
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin':
      if (team.order) team.order = team.order.filter((name) => !gone.has(name));
      break;
    case 'selector':
      team.rules = team.rules
        .map((rule) => ({ ...rule, candidates: rule.candidates.filter((name) => !gone.has(name)) }))
        .filter((rule) => rule.candidates.length > 0 && !(rule.from !== undefined && gone.has(rule.from)));
      if (team.fallback !== undefined && gone.has(team.fallback)) delete team.fallback;
      break;
    case 'swarm':
      for (const name of names) delete team.handoffs[name];
      for (const source of Object.keys(team.handoffs)) {
        team.handoffs[source] = team.handoffs[source]!.filter((name) => !gone.has(name));
      }
      if (gone.has(team.start) && fleet.agents[0]) team.start = fleet.agents[0].name;
      break;
    case 'parallel':
      team.workers = team.workers.filter((name) => !gone.has(name));
      break;
  }
}

function renameIn(list: string[] | undefined, from: string, to: string): void {
  list?.forEach((name, index) => {
    if (name === from) list[index] = to;
  });
}

function renameInTermination(spec: TerminationSpec, from: string, to: string): void {
  switch (spec.type) {
    case 'handoff':
      if (spec.target === from) spec.target = to;
      break;
    case 'text-mention':
    case 'source-match':
      renameIn(spec.sources, from, to);
      break;
    case 'and':
    case 'or':
      spec.conditions.forEach((child) => renameInTermination(child, from, to));
      break;
    default:
      break;
  }
}

/** Renames an agent and every reference to it: order, routes, handoffs, workers, layout, termination. */
export function renameAgent(fleet: Fleet, from: string, to: string): void {
  if (from === to) return;
  const agent = fleet.agents.find((candidate) => candidate.name === from);
  if (!agent) return;
  agent.name = to;
  if (fleet.layout[from]) {
    fleet.layout[to] = fleet.layout[from]!;
    delete fleet.layout[from];
  }
  const team = fleet.team;
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin':
      renameIn(team.order, from, to);
      break;
    case 'selector':
      for (const rule of team.rules) {
        renameIn(rule.candidates, from, to);
        if (rule.from === from) rule.from = to;
      }
      if (team.fallback === from) team.fallback = to;
      break;
    case 'swarm': {
      if (team.start === from) team.start = to;
      const entries = Object.entries(team.handoffs).map(([source, targets]) => {
        renameIn(targets, from, to);
        return [source === from ? to : source, targets] as const;
      });
      team.handoffs = Object.fromEntries(entries);
      break;
    }
    case 'parallel':
      renameIn(team.workers, from, to);
      if (team.aggregator === from) team.aggregator = to;
      break;
  }
  for (const other of fleet.agents)
    for (const reply of other.script ?? []) {
      if (reply.to === from) reply.to = to;
      if (reply.handoff === from) reply.handoff = to;
    }
  if (fleet.termination) renameInTermination(fleet.termination, from, to);
}

/** The team a pattern switch produces, keeping what carries over (the order, the members). */
export function teamForPattern(fleet: Fleet, pattern: TeamSpec['pattern']): TeamSpec {
  const names = fleet.agents.map((agent) => agent.name);
  const current = fleet.team;
  switch (pattern) {
    case 'sequential':
    case 'round-robin':
      return current.pattern === 'sequential' || current.pattern === 'round-robin'
        ? { pattern, ...(current.order ? { order: [...current.order] } : {}) }
        : { pattern };
    case 'selector':
      return { pattern, rules: [], allowRepeatedSpeaker: false, ...(names[0] ? { fallback: names[0] } : {}) };
    case 'swarm':
      return { pattern, start: names[0] ?? '', handoffs: {} };
    case 'parallel':
      return names.length > 1
        ? { pattern, workers: names.slice(0, -1), aggregator: names.at(-1)! }
        : { pattern, workers: [...names], aggregator: '' };
  }
}

/** What drawing an edge from `source` to `target` means in the current pattern. */
export function connect(fleet: Fleet, source: string, target: string): void {
  if (target === TASK_NODE_ID && fleet.team.pattern !== 'swarm') return;
  if (source === target) return;
  const team = fleet.team;
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin': {
      // Reordering: the target takes its turn right after the source (first when drawn from the task).
      const order = turnOrder(fleet).filter((name) => name !== target);
      if (source === TASK_NODE_ID) order.unshift(target);
      else {
        if (!order.includes(source)) order.push(source);
        order.splice(order.indexOf(source) + 1, 0, target);
      }
      team.order = order;
      break;
    }
    case 'selector':
      team.rules.push({ ...(source !== TASK_NODE_ID ? { from: source } : {}), candidates: [target] });
      break;
    case 'swarm':
      if (source === TASK_NODE_ID) team.start = target;
      else {
        const targets = (team.handoffs[source] ??= []);
        const name = target === TASK_NODE_ID ? USER : target;
        if (!targets.includes(name)) targets.push(name);
      }
      break;
    case 'parallel':
      if (source === TASK_NODE_ID) {
        if (!team.workers.includes(target)) team.workers.push(target);
        if (team.aggregator === target) team.aggregator = '';
      } else {
        team.aggregator = target;
        team.workers = team.workers.filter((name) => name !== target);
        if (!team.workers.includes(source)) team.workers.push(source);
      }
      break;
  }
}

/** What deleting an edge means; edges that stand for required fields (start, aggregator) stay. */
export function disconnect(fleet: Fleet, source: string, target: string, data: CanvasEdgeData): boolean {
  const team = fleet.team;
  switch (data.kind) {
    case 'order':
    case 'start':
      if (team.pattern === 'sequential' || team.pattern === 'round-robin') {
        team.order = turnOrder(fleet).filter((name) => name !== target);
        return true;
      }
      return false;
    case 'loop':
      return false;
    case 'route':
      if (team.pattern !== 'selector' || data.ruleIndex === undefined) return false;
      {
        const rule = team.rules[data.ruleIndex];
        if (!rule) return false;
        rule.candidates = rule.candidates.filter((name) => name !== target);
        if (rule.candidates.length === 0) team.rules.splice(data.ruleIndex, 1);
      }
      return true;
    case 'fallback':
      if (team.pattern !== 'selector') return false;
      delete team.fallback;
      return true;
    case 'handoff':
      if (team.pattern !== 'swarm') return false;
      {
        const name = target === TASK_NODE_ID ? USER : target;
        team.handoffs[source] = (team.handoffs[source] ?? []).filter((candidate) => candidate !== name);
      }
      return true;
    case 'fan-out':
      if (team.pattern !== 'parallel') return false;
      team.workers = team.workers.filter((name) => name !== target);
      return true;
    case 'fan-in':
      return false;
  }
}
