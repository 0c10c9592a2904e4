import type { MessageKind, TeamSpec, TokenUsage, ToolCall, ToolResult } from '@shared/domain';

/**
 * A foreign transcript, normalized: what every non-Fleetscope importer produces and
 * `buildImportedEvents` turns into a replayable event log.
 */
export interface ForeignMessage {
  /** The source's own id when it has one; otherwise one is made up. */
  id?: string;
  /** A participant name as the source spells it; agent names are sanitized by the builder. */
  from: string;
  to: string;
  kind: MessageKind;
  content: string;
  toolCalls?: ToolCall[];
  toolResults?: ToolResult[];
  usage?: TokenUsage;
  /** Epoch milliseconds, when the source records it. */
  at?: number;
  meta?: Record<string, unknown>;
  /** After this message the conversation passes to that agent (a handoff). */
  handoffTo?: string;
}

export interface ForeignConversation {
  title: string;
  task: string;
  /** Participants that are agents (not the user), in speaking or declared order. */
  agents: string[];
  team: TeamSpec;
  messages: ForeignMessage[];
  /** Per agent, the system prompt it was given: its configuration, not a message. */
  systemPrompts?: Record<string, string>;
  stopReason: string;
  /** Epoch milliseconds; the earliest timestamp in the source, else the file's modification time. */
  createdAt: number;
}
