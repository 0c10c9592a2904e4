import { BROADCAST, USER, type RunEvent } from '@shared/domain';

/** How an edge came about: an ordinary message, a handoff, or a routing decision. */
export type EdgeKind = 'message' | 'handoff' | 'routing';

export interface AgentStats {
  /** Completed messages this agent sent. */
  messages: number;
  /** Prompt plus completion tokens of those messages. */
  tokens: number;
  /** Seq of the last message this agent sent or received; 0 when none. */
  lastSeq: number;
}

export interface EdgeStats {
  from: string;
  to: string;
  kind: EdgeKind;
  count: number;
  /** Seq of the event that last used this edge (drives the pulse). */
  lastSeq: number;
}

/**
 * Graph totals folded from events alongside the ViewState: per-agent counts and who addressed
 * whom. Plain JSON, small (agents + agent pairs), so it is cheap to snapshot.
 */
export interface GraphStats {
  agents: Record<string, AgentStats>;
  edges: Record<string, EdgeStats>;
  /** The agent that spoke last, the source of the next routing edge. */
  lastSpeaker: string | null;
}

export function emptyStats(): GraphStats {
  return { agents: {}, edges: {}, lastSpeaker: null };
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

/** Applies one event to `stats` in place. Handoff messages are counted by their handoff event. */
export function applyStatsEvent(stats: GraphStats, event: RunEvent): void {
  switch (event.kind) {
    case 'message.completed': {
      const message = event.payload.message;
      const sender = agentStats(stats, message.from);
      sender.messages += 1;
      sender.tokens += (message.usage?.prompt ?? 0) + (message.usage?.completion ?? 0);
      sender.lastSeq = event.seq;
      if (message.to !== BROADCAST) agentStats(stats, message.to).lastSeq = event.seq;
      if (message.kind !== 'handoff') bump(stats, 'message', message.from, message.to, event.seq);
      if (message.from !== USER) stats.lastSpeaker = message.from;
      break;
    }
    case 'handoff':
      bump(stats, 'handoff', event.payload.from, event.payload.to, event.seq);
      agentStats(stats, event.payload.to).lastSeq = event.seq;
      break;
    case 'routing.decision':
      bump(stats, 'routing', stats.lastSpeaker ?? USER, event.payload.chosen, event.seq);
      break;
    default:
      break;
  }
}
