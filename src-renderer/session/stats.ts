import {
  BROADCAST,
  USER,
  displayToolName,
  isOwnWork,
  parseMcpToolRef,
  receiversOf,
  type RunEvent,
} from '@shared/domain';
import { hubId, scopeOf } from './team-shape';

/**
 * How an edge came about: an ordinary message, a handoff, a routing decision (drawn from the
 * selector hub), or a turn: the receiver took the floor right after the sender's broadcast.
 */
export type EdgeKind = 'message' | 'handoff' | 'routing' | 'turn';

export interface AgentStats {
  /** Completed messages this agent sent (tool calls and results included). */
  messages: number;
  /** Prompt plus completion tokens of those messages. */
  tokens: number;
  /** Seq of the last message this agent sent or received; 0 when none. */
  lastSeq: number;
  /** Tool calls this agent made (drawn as a badge on its node, never as nodes or edges). */
  toolCalls?: number;
  /** Of those, the calls of each MCP server's tools, by server name. */
  toolServers?: Record<string, number>;
}

export interface EdgeStats {
  from: string;
  to: string;
  kind: EdgeKind;
  count: number;
  /** Seq of the event that last used this edge (drives the pulse). */
  lastSeq: number;
}

/** Who broadcast last in a team, and who has answered that broadcast since. */
export interface TeamFloor {
  from: string;
  answered: string[];
  /** Agents that got the floor by a handoff or a routing decision since (their edge says why). */
  explained: string[];
}

/**
 * Graph totals folded from events alongside the ViewState: per-agent counts and who addressed
 * whom. Plain JSON, small (agents + agent pairs + one entry per team), so it is cheap to snapshot.
 */
export interface GraphStats {
  agents: Record<string, AgentStats>;
  edges: Record<string, EdgeStats>;
  /** The agent that completed the last message (the user left out): the current speaker. */
  lastSpeaker: string | null;
  /** The last broadcast: it pulses from its sender to every receiver. */
  lastBroadcast: { seq: number; from: string } | null;
  /** Per team scope ('' at the top, `team/` nested), the last broadcast and who answered it. */
  floors: Record<string, TeamFloor>;
}

export function emptyStats(): GraphStats {
  return { agents: {}, edges: {}, lastSpeaker: null, lastBroadcast: null, floors: {} };
}

export function edgeKey(kind: EdgeKind, from: string, to: string): string {
  return `${kind}:${from}->${to}`;
}

function agentStats(stats: GraphStats, name: string): AgentStats {
  let entry = stats.agents[name];
  if (!entry) {
    entry = { messages: 0, tokens: 0, lastSeq: 0 };
    stats.agents[name] = entry;
  }
  return entry;
}

function bump(stats: GraphStats, kind: EdgeKind, from: string, to: string, seq: number): void {
  const key = edgeKey(kind, from, to);
  const edge = stats.edges[key] ?? (stats.edges[key] = { from, to, kind, count: 0, lastSeq: 0 });
  edge.count += 1;
  edge.lastSeq = seq;
}

function floorOf(stats: GraphStats, scope: string): TeamFloor | undefined {
  return stats.floors[scope];
}

/** A speaker that got the floor by a handoff or routing: its next turn needs no turn edge. */
function explain(stats: GraphStats, name: string): void {
  const floor = floorOf(stats, scopeOf(name));
  if (floor && !floor.explained.includes(name)) floor.explained.push(name);
}

/** Records `from`'s broadcast as the floor of its own team and of the team it owns (if any). */
function openFloor(stats: GraphStats, from: string, seq: number): void {
  stats.lastBroadcast = { seq, from };
  const floor = (): TeamFloor => ({ from, answered: [], explained: [] });
  stats.floors[scopeOf(from)] = floor();
  if (from !== USER) stats.floors[`${from}/`] = floor();
}

/** The turn edge for `speaker` answering the open broadcast of its team (once per broadcast). */
function takeTurn(stats: GraphStats, speaker: string, seq: number): void {
  const floor = floorOf(stats, scopeOf(speaker));
  if (!floor || floor.from === speaker || floor.answered.includes(speaker)) return;
  floor.answered.push(speaker);
  // A routed or handed-off speaker's edge already says why it spoke; the user's turns are kept
  // because they mark who got the task.
  if (floor.from !== USER && floor.explained.includes(speaker)) return;
  bump(stats, 'turn', floor.from, speaker, seq);
}

/** Applies one event to `stats` in place. Handoff messages are counted by their handoff event. */
export function applyStatsEvent(stats: GraphStats, event: RunEvent): void {
  switch (event.kind) {
    case 'message.completed': {
      const message = event.payload.message;
      const sender = agentStats(stats, message.from);
      sender.messages += 1;
      sender.tokens += (message.usage?.prompt ?? 0) + (message.usage?.completion ?? 0);
      sender.lastSeq = event.seq;
      if (message.toolCalls?.length) sender.toolCalls = (sender.toolCalls ?? 0) + message.toolCalls.length;
      for (const call of message.toolCalls ?? []) {
        const server = parseMcpToolRef(displayToolName(call.name))?.server;
        if (server === undefined) continue;
        const servers = (sender.toolServers ??= {});
        servers[server] = (servers[server] ?? 0) + 1;
      }
      if (message.from !== USER) stats.lastSpeaker = message.from;
      if (isOwnWork(message) || message.from === message.to) break;
      const receivers = receiversOf(message);
      for (const to of receivers) if (to !== BROADCAST) agentStats(stats, to).lastSeq = event.seq;
      takeTurn(stats, message.from, event.seq);
      if (message.kind !== 'handoff')
        for (const to of receivers) bump(stats, 'message', message.from, to, event.seq);
      if (message.to === BROADCAST) openFloor(stats, message.from, event.seq);
      break;
    }
    case 'handoff':
      bump(stats, 'handoff', event.payload.from, event.payload.to, event.seq);
      agentStats(stats, event.payload.to).lastSeq = event.seq;
      explain(stats, event.payload.to);
      break;
    case 'routing.decision': {
      const chosen = event.payload.chosen;
      bump(stats, 'routing', hubId(scopeOf(chosen)), chosen, event.seq);
      explain(stats, chosen);
      break;
    }
    default:
      break;
  }
}
