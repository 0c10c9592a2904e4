import { BROADCAST, USER, isLiveStatus, type AgentStatus } from '@shared/domain';
import type { SessionFrame } from './frame';
import { agentColor } from './agent-colors';
import type { EdgeKind } from './stats';
import { hubId, scopeOf, type AgentInfo, type TeamSlot } from './team-shape';

export { agentsOfFleet, type AgentInfo } from './team-shape';

/** An agent, a team agent drawn as a group around its members, or a selector team's hub. */
export type NodeKind = 'agent' | 'team' | 'hub';

export interface AgentNodeData {
  /** The label: the member name (a nested member without its `team/` prefix). */
  name: string;
  kind: NodeKind;
  role: string;
  model: string;
  status: AgentStatus;
  messages: number;
  tokens: number;
  /** Tool calls this agent made: a badge on its node instead of nodes or edges of their own. */
  toolCalls: number;
  /** Of those, the calls of each MCP server's tools (a badge per server), most called first. */
  toolServers: Array<{ server: string; calls: number }>;
  /** Broadcasts this agent sent (to everyone in its team). */
  broadcasts: number;
  /** Times it got the task from the user. */
  fromUser: number;
  /** Messages it addressed to the user. */
  toUser: number;
  /** For a nested team's member: messages it addressed to the team agent holding it (its results). */
  toTeam: number;
  /** The tail of the message this agent is streaming right now; empty when it is not. */
  streaming: string;
  /** Seq of the last message it sent or received: a change makes the node pulse. */
  pulseSeq: number;
  color: string;
  /** The current speaker: thinking or streaming now, or else the last to have spoken. */
  speaking: boolean;
  /** Many agents: a smaller node (one line of status, no role). */
  compact: boolean;
  /** Its place in the team pattern; null for senders the fleet does not list. */
  slot: TeamSlot | null;
}

/** Edge kinds as drawn: a turn after a broadcast is drawn as a message from the broadcaster. */
export type DrawnEdgeKind = Exclude<EdgeKind, 'turn'>;

export interface MessageEdgeData {
  kind: DrawnEdgeKind;
  /** Direct messages plus turns taken after the source's broadcasts. */
  count: number;
  /** How many of `count` were turns after a broadcast (the rest are direct messages). */
  turns: number;
  /** Seq of the last event on this edge: a change sends a pulse along it. */
  pulseSeq: number;
  color: string;
  /** Stroke width in pixels, growing with the count. */
  width: number;
  /** Many agents: a count of one goes without a label (the stroke says it), to spare the clutter. */
  quiet: boolean;
}

export interface GraphNodeModel {
  id: string;
  /** The team agent whose group holds this node (null at the top). */
  parent: string | null;
  data: AgentNodeData;
}

export interface GraphEdgeModel {
  id: string;
  source: string;
  target: string;
  data: MessageEdgeData;
}

/** The last broadcast: it pulses from its sender (null: the user) to every receiver. */
export interface BroadcastPulse {
  seq: number;
  from: string | null;
  to: string[];
}

export interface GraphModel {
  nodes: GraphNodeModel[];
  edges: GraphEdgeModel[];
  broadcast: BroadcastPulse | null;
}

/** How much streaming text a node shows. */
export const STREAM_TAIL = 160;
/** The selector hub's colour (the app's accent; readable on both themes). */
export const HUB_COLOR = '#5b6cff';
/**
 * Above this many nodes, agents are drawn compact (name, status and figures; the role and model
 * in the tooltip), so a fitted graph keeps its text at a readable size rather than shrinking it.
 */
export const COMPACT_ABOVE = 5;

/** Stroke width for an edge that carried `count` messages: 1.5 px, growing slowly to 7 px. */
export function edgeWidth(count: number): number {
  return Math.min(7, 1.5 + 1.25 * Math.log2(Math.max(1, count)));
}

/** Participants that have no box: the user and the broadcast address. */
function boxless(name: string, known: ReadonlySet<string>): boolean {
  return name === USER || name === BROADCAST || (name === 'system' && !known.has(name));
}

/**
 * Events (folded into a frame) to graph: one node per agent of the fleet (nested members inside
 * their team's group) plus any other sender seen in the log, a hub for each selector team; one
 * edge per (kind, from, to) between drawn nodes, with counts. The user and broadcasts get no box:
 * messages to and from the user show on the agent, a broadcast pulses to every receiver and the
 * agent that answers it draws an edge from the broadcaster. Pure: the same mapper draws live and
 * replayed sessions.
 */
export function mapGraph(agents: readonly AgentInfo[], frame: SessionFrame): GraphModel {
  const { view, stats } = frame;
  const streaming = new Map<string, string>();
  for (const id of view.order) {
    const message = view.messages[id];
    if (message?.state === 'streaming' && message.content)
      streaming.set(message.from, message.content.slice(-STREAM_TAIL));
  }
  const fleetNames = new Set(agents.map((agent) => agent.name));
  const infos = new Map<string, AgentInfo>();
  for (const info of agents)
    if (!infos.has(info.name) && !boxless(info.name, fleetNames)) infos.set(info.name, info);
  const extra = new Set<string>();
  for (const name of Object.keys(view.agents)) extra.add(name);
  for (const edge of Object.values(stats.edges)) {
    extra.add(edge.from);
    extra.add(edge.to);
  }
  for (const name of Object.keys(stats.agents)) extra.add(name);
  const strangers = [...extra]
    .filter((name) => !infos.has(name) && !boxless(name, fleetNames) && !name.endsWith('@selector'))
    .sort();
  const hubs = [
    ...new Set(
      [...infos.values()].filter((info) => info.slot?.pattern === 'selector').map((info) => info.slot!.scope),
    ),
  ];
  for (const edge of Object.values(stats.edges))
    if (edge.kind === 'routing' && !hubs.includes(scopeOf(edge.to))) hubs.push(scopeOf(edge.to));
  const total = infos.size + strangers.length + hubs.length;
  const compact = total > COMPACT_ABOVE;

  /**
   * Messages from whoever gives this agent its task (the user, or the team agent that holds
   * it) and, the other way, messages and handoffs back to the user.
   */
  const fromOwner = (name: string, owner: string): number => {
    let sum = 0;
    for (const edge of Object.values(stats.edges))
      if ((edge.kind === 'message' || edge.kind === 'turn') && edge.from === owner && edge.to === name)
        sum += edge.count;
    return sum;
  };
  const toUser = (name: string): number => {
    let sum = 0;
    for (const edge of Object.values(stats.edges))
      if ((edge.kind === 'message' || edge.kind === 'handoff') && edge.from === name && edge.to === USER)
        sum += edge.count;
    return sum;
  };
  const active = new Set(
    Object.entries(view.agents)
      .filter(([, status]) => status === 'thinking' || status === 'streaming')
      .map(([name]) => name),
  );
  const speaker = active.size > 0 ? null : stats.lastSpeaker;
  const finished = view.status !== null && !isLiveStatus(view.status);

  const node = (name: string, info: AgentInfo | undefined, index: number): GraphNodeModel => {
    const counts = stats.agents[name];
    const slot = info?.slot ?? null;
    const broadcasts = stats.edges[`message:${name}->${BROADCAST}`]?.count ?? 0;
    return {
      id: name,
      parent: slot && slot.group && infos.has(slot.group) ? slot.group : null,
      data: {
        name: slot?.scope ? name.slice(slot.scope.length) : name,
        kind: slot?.isTeam ? 'team' : 'agent',
        role: info?.role ?? '',
        model: info?.model ?? '',
        // The fold's status, which lanes and transcript show too; an agent it never reported on
        // that took part in a finished session is done.
        status: view.agents[name] ?? (finished && counts ? 'done' : 'idle'),
        messages: counts?.messages ?? 0,
        tokens: counts?.tokens ?? 0,
        toolCalls: counts?.toolCalls ?? 0,
        toolServers: Object.entries(counts?.toolServers ?? {})
          .map(([server, calls]) => ({ server, calls }))
          .sort((a, b) => b.calls - a.calls || a.server.localeCompare(b.server)),
        broadcasts,
        fromUser: fromOwner(name, USER) + (slot?.group ? fromOwner(name, slot.group) : 0),
        toUser: toUser(name),
        toTeam: slot?.group ? fromOwner(slot.group, name) : 0,
        streaming: streaming.get(name) ?? '',
        pulseSeq: counts?.lastSeq ?? 0,
        color: info?.color ?? agentColor(name, index),
        speaking: active.has(name) || name === speaker,
        compact,
        slot,
      },
    };
  };
  const nodes: GraphNodeModel[] = [];
  let index = 0;
  for (const [name, info] of infos) nodes.push(node(name, info, index++));
  for (const name of strangers) nodes.push(node(name, undefined, -1));
  for (const scope of hubs) {
    const id = hubId(scope);
    const routed = Object.values(stats.edges).filter((edge) => edge.kind === 'routing' && edge.from === id);
    const group = scope.slice(0, -1);
    nodes.push({
      id,
      parent: group && infos.has(group) ? group : null,
      data: {
        name: 'selector',
        kind: 'hub',
        role: 'picks who speaks next',
        model: '',
        status: 'idle',
        messages: routed.reduce((sum, edge) => sum + edge.count, 0),
        tokens: 0,
        toolCalls: 0,
        toolServers: [],
        broadcasts: 0,
        fromUser: 0,
        toUser: 0,
        toTeam: 0,
        streaming: '',
        pulseSeq: Math.max(0, ...routed.map((edge) => edge.lastSeq)),
        color: HUB_COLOR,
        speaking: false,
        compact,
        slot: null,
      },
    });
  }

  const drawn = new Set(nodes.map((item) => item.id));
  const colorOf = new Map(nodes.map((item) => [item.id, item.data.color]));
  const merged = new Map<string, GraphEdgeModel>();
  // A group already shows that it holds its members: no edges between a team and its own members.
  const holds = (outer: string, inner: string) => inner.startsWith(`${outer}/`);
  for (const edge of Object.values(stats.edges)) {
    if (edge.from === edge.to || !drawn.has(edge.from) || !drawn.has(edge.to)) continue;
    if (holds(edge.from, edge.to) || holds(edge.to, edge.from)) continue;
    const kind: DrawnEdgeKind = edge.kind === 'turn' ? 'message' : edge.kind;
    const id = `${kind}:${edge.from}->${edge.to}`;
    const existing = merged.get(id);
    const turns = edge.kind === 'turn' ? edge.count : 0;
    if (existing) {
      existing.data.count += edge.count;
      existing.data.turns += turns;
      existing.data.pulseSeq = Math.max(existing.data.pulseSeq, edge.lastSeq);
      existing.data.width = edgeWidth(existing.data.count);
      existing.data.quiet = compact && existing.data.count < 2;
      continue;
    }
    merged.set(id, {
      id,
      source: edge.from,
      target: edge.to,
      data: {
        kind,
        count: edge.count,
        turns,
        pulseSeq: edge.lastSeq,
        color: colorOf.get(edge.from) ?? 'var(--fg-muted)',
        width: edgeWidth(edge.count),
        quiet: compact && edge.count < 2,
      },
    });
  }
  const edges = [...merged.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { nodes, edges, broadcast: broadcastOf(stats.lastBroadcast, nodes) };
}

/** Receivers of a broadcast: the sender's team mates, and the members of the team it owns. */
function broadcastOf(
  last: { seq: number; from: string } | null,
  nodes: readonly GraphNodeModel[],
): BroadcastPulse | null {
  if (!last) return null;
  const scope = last.from === USER ? '' : scopeOf(last.from);
  const owned = `${last.from}/`;
  const to = nodes
    .filter((item) => item.id !== last.from && item.data.kind !== 'hub')
    .filter((item) => {
      const own = scopeOf(item.id);
      return own === scope || own === owned;
    })
    .map((item) => item.id);
  const sender = nodes.some((item) => item.id === last.from) ? last.from : null;
  return { seq: last.seq, from: sender, to };
}
