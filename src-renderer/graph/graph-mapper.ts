import { BROADCAST, USER, isLiveStatus, type AgentStatus } from '@shared/domain';
import type { SessionFrame } from '../session/frame';
import type { EdgeKind } from './stats';

/** An agent as the fleet snapshot describes it. */
export interface AgentInfo {
  name: string;
  role: string;
  model: string;
  type: string;
}

export type NodeKind = 'agent' | 'user' | 'broadcast';

export interface AgentNodeData {
  name: string;
  kind: NodeKind;
  role: string;
  model: string;
  status: AgentStatus;
  messages: number;
  tokens: number;
  /** The tail of the message this agent is streaming right now; empty when it is not. */
  streaming: string;
  /** Seq of the last message it sent or received: a change makes the node pulse. */
  pulseSeq: number;
}

export interface MessageEdgeData {
  kind: EdgeKind;
  count: number;
  /** Seq of the last event on this edge: a change sends a pulse along it. */
  pulseSeq: number;
}

export interface GraphNodeModel {
  id: string;
  data: AgentNodeData;
}

export interface GraphEdgeModel {
  id: string;
  source: string;
  target: string;
  data: MessageEdgeData;
}

export interface GraphModel {
  nodes: GraphNodeModel[];
  edges: GraphEdgeModel[];
}

/** How much streaming text a node shows. */
export const STREAM_TAIL = 160;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The agents of a fleet snapshot, read tolerantly (imported sessions may carry none). */
export function agentsOfFleet(fleet: unknown): AgentInfo[] {
  if (!isRecord(fleet) || !Array.isArray(fleet.agents)) return [];
  const agents: AgentInfo[] = [];
  for (const agent of fleet.agents) {
    if (!isRecord(agent) || typeof agent.name !== 'string') continue;
    const provider = isRecord(agent.provider) ? agent.provider : {};
    agents.push({
      name: agent.name,
      role: typeof agent.role === 'string' ? agent.role : '',
      model:
        typeof provider.model === 'string'
          ? provider.model
          : typeof agent.type === 'string' && agent.type !== 'llm'
            ? agent.type
            : '',
      type: typeof agent.type === 'string' ? agent.type : 'llm',
    });
  }
  return agents;
}

/**
 * Events (folded into a frame) to graph: one node per agent of the fleet plus any other sender
 * seen in the log, a user node and a broadcast node; one edge per (kind, from, to) with counts.
 * Pure: the same mapper draws live and replayed sessions.
 */
export function mapGraph(agents: readonly AgentInfo[], frame: SessionFrame): GraphModel {
  const { view, stats } = frame;
  const streaming = new Map<string, string>();
  for (const id of view.order) {
    const message = view.messages[id];
    if (message?.state === 'streaming' && message.content)
      streaming.set(message.from, message.content.slice(-STREAM_TAIL));
  }
  const node = (name: string, kind: NodeKind, info?: AgentInfo): GraphNodeModel => {
    const counts = stats.agents[name];
    return {
      id: name,
      data: {
        name: kind === 'broadcast' ? 'Everyone' : kind === 'user' ? 'User' : name,
        kind,
        role: info?.role ?? (kind === 'user' ? 'gives the task' : kind === 'broadcast' ? 'broadcast' : ''),
        model: info?.model ?? '',
        status:
          view.agents[name] ??
          (kind === 'agent' && view.status !== null && !isLiveStatus(view.status) && counts
            ? 'done'
            : 'idle'),
        messages: counts?.messages ?? 0,
        tokens: counts?.tokens ?? 0,
        streaming: streaming.get(name) ?? '',
        pulseSeq: counts?.lastSeq ?? 0,
      },
    };
  };
  const nodes: GraphNodeModel[] = [node(USER, 'user')];
  const known = new Set<string>([USER, BROADCAST]);
  for (const info of agents) {
    if (known.has(info.name)) continue;
    known.add(info.name);
    nodes.push(node(info.name, 'agent', info));
  }
  const extra = new Set<string>();
  for (const name of Object.keys(view.agents)) extra.add(name);
  for (const edge of Object.values(stats.edges)) {
    extra.add(edge.from);
    extra.add(edge.to);
  }
  for (const name of Object.keys(stats.agents)) extra.add(name);
  for (const name of [...extra].sort()) {
    if (known.has(name)) continue;
    known.add(name);
    nodes.push(node(name, 'agent'));
  }
  nodes.push(node(BROADCAST, 'broadcast'));
  const edges: GraphEdgeModel[] = Object.entries(stats.edges)
    .map(([id, edge]) => ({
      id,
      source: edge.from,
      target: edge.to,
      data: { kind: edge.kind, count: edge.count, pulseSeq: edge.lastSeq },
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { nodes, edges };
}
