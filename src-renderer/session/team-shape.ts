import { agentColor } from './agent-colors';

/** The team patterns the layout knows, plus `unknown` for a snapshot without a readable team. */
export type LayoutPattern = 'sequential' | 'round-robin' | 'selector' | 'swarm' | 'parallel' | 'unknown';

/** What part an agent plays in its team's pattern (drives where the layout puts it). */
export type TeamPart = 'member' | 'worker' | 'aggregator' | 'start';

/** Where an agent sits in its team: the pattern, its place in it, whom it may hand off to. */
export interface TeamSlot {
  /** Envelope prefix of the agent's team: '' at the top, `team/` for a nested team's members. */
  scope: string;
  /** The team agent that contains this one ('' at the top). */
  group: string;
  pattern: LayoutPattern;
  part: TeamPart;
  /** Position in the team's speaking order (sequential, round robin) or in the fleet otherwise. */
  rank: number;
  /** Qualified names this agent may hand off to (swarm). */
  handoffs: string[];
  /** True for a team agent, which is drawn as a group around its members. */
  isTeam: boolean;
}

/** An agent as the fleet snapshot describes it. */
export interface AgentInfo {
  /** The envelope name: the member name, prefixed with `team/` inside a nested team. */
  name: string;
  role: string;
  model: string;
  type: string;
  /** The agent's one colour (see session/agent-colors.ts); the index is its place in this list. */
  color?: string;
  slot?: TeamSlot;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

const PATTERNS: readonly LayoutPattern[] = ['sequential', 'round-robin', 'selector', 'swarm', 'parallel'];

function patternOf(team: Record<string, unknown>): LayoutPattern {
  const pattern = team.pattern;
  return PATTERNS.find((known) => known === pattern) ?? 'unknown';
}

/** Depth limit for nested teams read from a snapshot (fleet files are far shallower). */
const MAX_DEPTH = 8;

/**
 * The agents of a fleet snapshot, read tolerantly (imported sessions may carry none), with the
 * members of nested teams after their team agent (qualified as `team/member`), each with its
 * place in its team and its colour. Pure.
 */
export function agentsOfFleet(fleet: unknown): AgentInfo[] {
  const out: AgentInfo[] = [];
  readTeam(fleet, '', '', out, 0);
  for (const [index, agent] of out.entries()) agent.color = agentColor(agent.name, index);
  return out;
}

function readTeam(fleet: unknown, scope: string, group: string, out: AgentInfo[], depth: number): void {
  if (!isRecord(fleet) || !Array.isArray(fleet.agents) || depth > MAX_DEPTH) return;
  const team = isRecord(fleet.team) ? fleet.team : {};
  const pattern = patternOf(team);
  const names = fleet.agents
    .filter(isRecord)
    .map((agent) => agent.name)
    .filter((name): name is string => typeof name === 'string');
  const order = pattern === 'sequential' || pattern === 'round-robin' ? strings(team.order) : [];
  const speaking = [
    ...order.filter((name) => names.includes(name)),
    ...names.filter((name) => !order.includes(name)),
  ];
  const workers = pattern === 'parallel' ? strings(team.workers) : [];
  const aggregator = pattern === 'parallel' && typeof team.aggregator === 'string' ? team.aggregator : null;
  const start = pattern === 'swarm' && typeof team.start === 'string' ? team.start : null;
  const handoffs = pattern === 'swarm' && isRecord(team.handoffs) ? team.handoffs : {};
  const qualify = (name: string) => (names.includes(name) ? `${scope}${name}` : name);
  const seen = new Set<string>();
  for (const agent of fleet.agents) {
    if (!isRecord(agent) || typeof agent.name !== 'string' || seen.has(agent.name)) continue;
    seen.add(agent.name);
    const provider = isRecord(agent.provider) ? agent.provider : {};
    const type = typeof agent.type === 'string' ? agent.type : 'llm';
    const isTeam = type === 'team' && isRecord(agent.fleet);
    const part: TeamPart =
      agent.name === aggregator
        ? 'aggregator'
        : workers.includes(agent.name)
          ? 'worker'
          : agent.name === start
            ? 'start'
            : 'member';
    out.push({
      name: `${scope}${agent.name}`,
      role: typeof agent.role === 'string' ? agent.role : '',
      model: typeof provider.model === 'string' ? provider.model : type !== 'llm' ? type : '',
      type,
      slot: {
        scope,
        group,
        pattern,
        part,
        rank: speaking.indexOf(agent.name),
        handoffs: strings(handoffs[agent.name]).map(qualify),
        isTeam,
      },
    });
    if (isTeam) readTeam(agent.fleet, `${scope}${agent.name}/`, `${scope}${agent.name}`, out, depth + 1);
  }
}

/** Id of the selector hub drawn in the middle of a selector team (never a valid agent name). */
export function hubId(scope: string): string {
  return `${scope}@selector`;
}

/** The team prefix of an envelope name: `team/` for `team/member`, '' at the top. */
export function scopeOf(name: string): string {
  const cut = name.lastIndexOf('/');
  return cut < 0 ? '' : name.slice(0, cut + 1);
}
