import type { FamilyCounts, ForkChange, ForkOf } from '@shared/contract';
import type {
  Message,
  MessageKind,
  MessageState,
  SessionStatus,
  SessionSummary,
  TokenUsage,
  ToolCall,
  ToolResult,
} from '@shared/domain';

/** A `sessions` row as SQLite returns it. */
export interface SessionRow {
  id: string;
  title: string;
  task: string;
  fleet_name: string;
  fleet_json: string | null;
  status: string;
  stop_reason: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
  message_count: number;
  tokens: number;
  /** Migration 13; absent only in rows selected without them. */
  cost?: number;
  unpriced_calls?: number;
  parent_session_id: string | null;
  fork_seq: number | null;
  tags: string;
  source: string;
  read_only: number;
  fork_message: number | null;
  fork_changes: string | null;
  root_session_id: string | null;
  /** Computed by the list queries: direct forks, and sessions in the family (root included). */
  fork_count?: number;
  family_size?: number;
}

/** A `messages` row as SQLite returns it. */
export interface MessageRow {
  pk: number;
  session_id: string;
  id: string;
  seq: number;
  t: number;
  thread_id: string;
  parent_id: string | null;
  sender: string;
  receiver: string;
  kind: string;
  content: string;
  meta: string;
  tool_calls: string | null;
  tool_results: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  state: string;
  dropped_reason: string | null;
  /** Usage details (migration 13); null on rows from before and on calls that did not report them. */
  cached_tokens?: number | null;
  reasoning_tokens?: number | null;
  model?: string | null;
  first_token_ms?: number | null;
  duration_ms?: number | null;
  cost?: number | null;
}

/** One row of the session list: the summary plus how long it ran, in milliseconds. */
export interface SessionListItem extends SessionSummary {
  durationMs: number;
  /**
   * The session it was forked from and at which message; null when it is not a fork. Always set
   * by the store (optional as in the contract's list item, which older callers build).
   */
  forkOf?: ForkOf | null;
  family?: FamilyCounts;
}

/** Columns the list queries add to `sessions.*`: fork and family counts. */
export const FAMILY_COLUMNS = `(SELECT count(*) FROM sessions c WHERE c.parent_session_id = sessions.id) AS fork_count,
  1 + (SELECT count(*) FROM sessions f WHERE f.root_session_id = coalesce(sessions.root_session_id, sessions.id)
    AND f.id <> coalesce(sessions.root_session_id, sessions.id)) AS family_size`;

/** What a fork changed, as stored in `fork_changes` (written by the store from typed values). */
export function parseForkChanges(json: string | null): ForkChange[] {
  if (json === null) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as ForkChange[]) : [];
  } catch {
    return [];
  }
}

/** A stored message with where it sits in the event log (`seq`, the cursor for paging). */
export interface StoredMessage extends Message {
  seq: number;
  /** Set when the runtime dropped the message (unknown recipient); it was never delivered. */
  droppedReason: string | null;
}

function parseTags(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

export function toSessionListItem(row: SessionRow): SessionListItem {
  const end = row.ended_at ?? row.updated_at;
  return {
    id: row.id,
    title: row.title,
    task: row.task,
    fleetName: row.fleet_name,
    // Only the store writes this column, always from the SessionStatus union.
    status: row.status as SessionStatus,
    stopReason: row.stop_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    messageCount: row.message_count,
    tokens: row.tokens,
    parentSessionId: row.parent_session_id,
    forkSeq: row.fork_seq,
    tags: parseTags(row.tags),
    source: row.source,
    readOnly: row.read_only !== 0,
    durationMs: Math.max(0, end - row.created_at),
    cost: row.cost ?? 0,
    unpricedCalls: row.unpriced_calls ?? 0,
    forkOf:
      row.parent_session_id !== null && row.fork_message !== null
        ? { sessionId: row.parent_session_id, atMessage: row.fork_message }
        : null,
    family: {
      rootId: row.root_session_id ?? row.id,
      size: row.family_size ?? 1,
      forks: row.fork_count ?? 0,
    },
  };
}

/** Rows are written only by the store from validated domain values, so the casts hold. */
export function toStoredMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    id: row.id,
    threadId: row.thread_id,
    parentId: row.parent_id,
    from: row.sender,
    to: row.receiver,
    kind: row.kind as MessageKind,
    content: row.content,
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    state: row.state as MessageState,
    t: row.t,
    seq: row.seq,
    droppedReason: row.dropped_reason,
  };
  if (row.tool_calls !== null) message.toolCalls = JSON.parse(row.tool_calls) as ToolCall[];
  if (row.tool_results !== null) message.toolResults = JSON.parse(row.tool_results) as ToolResult[];
  if (row.prompt_tokens !== null || row.completion_tokens !== null) {
    message.usage = usageOfRow(row);
  }
  return message;
}

/** Drops the store-only fields, giving back the domain message. */
export function toMessage(stored: StoredMessage): Message {
  const { seq: _seq, droppedReason: _dropped, ...message } = stored;
  return message;
}

/** An `event_log` row as a reader selects it. */
export interface StoredEventRow {
  seq: number;
  t: number;
  kind: string;
  agent: string | null;
  msg: number | null;
  payload: string;
}

/** The `message_rows` columns decoding reads. */
export type ReferredRow = Pick<
  MessageRow,
  | 'id'
  | 'thread_id'
  | 'parent_id'
  | 'sender'
  | 'receiver'
  | 'kind'
  | 'content'
  | 'meta'
  | 'tool_calls'
  | 'tool_results'
  | 'state'
  | 't'
>;

/**
 * A message row's usage: the token pair, plus the details migration 13 stores where they are
 * known. `cost` is given (null: no price) only for rows that recorded a model or a cost, so a row
 * from before keeps the plain pair it was written with.
 */
export function usageOfRow(row: Omit<MessageRow, 'pk' | 'session_id'>): TokenUsage {
  const usage: TokenUsage = { prompt: row.prompt_tokens ?? 0, completion: row.completion_tokens ?? 0 };
  if (row.cached_tokens != null) usage.cached = row.cached_tokens;
  if (row.reasoning_tokens != null) usage.reasoning = row.reasoning_tokens;
  if (row.model != null) usage.model = row.model;
  if (row.first_token_ms != null) usage.firstTokenMs = row.first_token_ms;
  if (row.duration_ms != null) usage.durationMs = row.duration_ms;
  if (row.cost != null || row.model != null) usage.cost = row.cost ?? null;
  return usage;
}
