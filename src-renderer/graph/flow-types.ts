import type { Edge, EdgeProps, Node, NodeProps } from '@vue-flow/core';
import type { AgentNodeData, MessageEdgeData } from '../session/graph-mapper';

/** Session graph elements raise no custom events. */
type NoCustomEvents = Record<string, never>;

/** Node types of the session graph: an agent, a team agent (a group), a selector hub. */
export type GraphNodeType = 'agent' | 'team' | 'hub';

/** A node of the session graph as Vue Flow holds it. */
export type AgentFlowNode = Node<AgentNodeData, NoCustomEvents, GraphNodeType>;
export type AgentNodeProps = NodeProps<AgentNodeData, NoCustomEvents, GraphNodeType>;

/** An edge of the session graph: the messages between two agents. */
export type MessageFlowEdge = Edge<MessageEdgeData, NoCustomEvents, 'message'>;
export type MessageEdgeProps = EdgeProps<MessageEdgeData, NoCustomEvents, 'message'>;
