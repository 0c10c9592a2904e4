import type { DefaultEdge, Node, NodeProps } from '@vue-flow/core';
import type { AgentSpec, Fleet, RouteRule, TeamSpec, TerminationSpec } from '@shared/domain';

/** The node standing for the task (the user): where the conversation enters the team. */
export const TASK_NODE_ID = '__task';

export interface Position {
  x: number;
  y: number;
}

export interface AgentNodeData {
  kind: 'agent';
  agent: AgentSpec;
  /** Place in the turn order (sequential / round robin), from 1; null when not in it. */
  turn: number | null;
  /** What the team pattern makes of this agent, shown as a badge. */
  badge: string | null;
  /** True when the fleet had no layout for the agent and the canvas placed it. */
  autoPlaced: boolean;
}

export interface TaskNodeData {
  kind: 'task';
  pattern: TeamSpec['pattern'];
}

export type CanvasNodeData = AgentNodeData | TaskNodeData;

/** Builder elements raise no custom events. */
type NoCustomEvents = Record<string, never>;

/**
 * The builder's Vue Flow nodes, one type per node kind. The canvas mapping always sets `type` and
 * `data`, so they are required here (Vue Flow's `Node` leaves both optional).
 */
export interface AgentCanvasNode extends Node<AgentNodeData, NoCustomEvents, 'agent'> {
  type: 'agent';
  data: AgentNodeData;
}
export interface TaskCanvasNode extends Node<TaskNodeData, NoCustomEvents, 'task'> {
  type: 'task';
  data: TaskNodeData;
}
export type CanvasNode = AgentCanvasNode | TaskCanvasNode;
export type AgentCanvasNodeProps = NodeProps<AgentNodeData, NoCustomEvents, 'agent'>;
export type TaskCanvasNodeProps = NodeProps<TaskNodeData, NoCustomEvents, 'task'>;

export type EdgeKind = 'order' | 'loop' | 'start' | 'route' | 'fallback' | 'handoff' | 'fan-out' | 'fan-in';

export interface CanvasEdgeData {
  kind: EdgeKind;
  /** Selector routes: the index of the rule in `team.rules` and its conditions. */
  ruleIndex?: number;
  rule?: Omit<RouteRule, 'candidates'>;
}

/** Builder edges: Vue Flow's bezier ('default') and smoothstep, and the repeat loop (LoopEdge). */
export type CanvasEdgeType = 'default' | 'smoothstep' | 'loop';

/** A builder edge as Vue Flow holds it; `data` says what the team makes of it. */
export interface CanvasEdge extends DefaultEdge<CanvasEdgeData, NoCustomEvents, CanvasEdgeType> {
  label?: string;
  data: CanvasEdgeData;
}

/** Fleet fields that are not drawn as nodes or edges, carried so the mapping loses nothing. */
export interface CanvasMeta {
  version: Fleet['version'];
  name: string;
  description: string;
  termination: TerminationSpec | undefined;
  team: TeamSpec;
  /** Layout entries naming no agent (the validator warns about them; kept as they were). */
  strayLayout: Fleet['layout'];
}

export interface Canvas {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  meta: CanvasMeta;
}
