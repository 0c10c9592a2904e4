import type { Edge, EdgeProps, Node, NodeProps } from '@vue-flow/core';
import type { AgentNodeData, MessageEdgeData } from './graph-mapper';

/** Session graph elements raise no custom events. */
type NoCustomEvents = Record<string, never>;

/** A node of the session graph as Vue Flow holds it: an agent (or the user, or everyone). */
export type AgentFlowNode = Node<AgentNodeData, NoCustomEvents, 'agent'>;
export type AgentNodeProps = NodeProps<AgentNodeData, NoCustomEvents, 'agent'>;

/** An edge of the session graph: the messages between two agents. */
export type MessageFlowEdge = Edge<MessageEdgeData, NoCustomEvents, 'message'>;
export type MessageEdgeProps = EdgeProps<MessageEdgeData, NoCustomEvents, 'message'>;
