import {
  BROADCAST,
  USER,
  type MessageKind,
  type MessageState,
  type ToolCall,
  type ToolResult,
} from '@shared/domain';
import type { SqliteDatabase } from './database';
import { SID_OF } from './event-codec';
import { clip, type Lineage, type LineageSegment } from './lineage';
import { MESSAGE_ROW_COLUMNS, messageRows } from './raw-rows';
import { toStoredMessage, type StoredMessage } from './rows';
import { StatementCache } from './statement-cache';

/** A message and the seq of its first event (its start; its completion when it never streamed). */
export interface MessageStart {
  message: StoredMessage;
  startSeq: number;
}

/**
 * A message of an agent's view as the context inspector reads it. `textless` ones were read
 * without their content (`''` in its place): their provider counted them, so only a preview
 * needs the text, which `messageTexts` gives for the few parts shown.
 */
export interface ViewMessage extends StoredMessage {
  textless?: true;
}

/**
 * Columns of the view read, in the order `viewMessage` takes them. Content is read only where the
 * inspector counts it (`?2` is the agent): a person's message, a message no provider counted, and
 * the agent's own tool calls and results. Meta only where routing reads it (a bounced error).
 */
const VIEW_COLUMNS = `id, seq, t, thread_id, parent_id, sender, receiver, kind, state, prompt_tokens,
  completion_tokens, tool_calls, tool_results, dropped_reason,
  CASE WHEN sender = '${USER}' OR coalesce(completion_tokens, 0) <= 0
    OR (sender = @agent AND (tool_calls IS NOT NULL OR tool_results IS NOT NULL)) THEN content END,
  CASE WHEN kind = 'error' THEN meta END`;

type ViewTuple = [
  id: string,
  seq: number,
  t: number,
  thread_id: string,
  parent_id: string | null,
  sender: string,
  receiver: string,
  kind: string,
  state: string,
  prompt_tokens: number | null,
  completion_tokens: number | null,
  tool_calls: string | null,
  tool_results: string | null,
  dropped_reason: string | null,
  content: string | null,
  meta: string | null,
];

function viewMessage(row: ViewTuple): ViewMessage {
  const [id, seq, t, threadId, parentId, from, to, kind, state, prompt, completion, calls, results] = row;
  const [, , , , , , , , , , , , , droppedReason, content, meta] = row;
  const message: ViewMessage = {
    id,
    threadId,
    parentId,
    from,
    to,
    kind: kind as MessageKind,
    content: content ?? '',
    meta: meta === null ? {} : (JSON.parse(meta) as Record<string, unknown>),
    state: state as MessageState,
    t,
    seq,
    droppedReason,
  };
  if (content === null) message.textless = true;
  if (calls !== null) message.toolCalls = JSON.parse(calls) as ToolCall[];
  if (results !== null) message.toolResults = JSON.parse(results) as ToolResult[];
  if (prompt !== null || completion !== null)
    message.usage = { prompt: prompt ?? 0, completion: completion ?? 0 };
  return message;
}

/** The `messages` view's columns, read from `message_rows` (which also has `first_seq`). */
const ROW_COLUMNS = MESSAGE_ROW_COLUMNS.replace('session_id', '? AS session_id');

/** Reads for the context inspector: a message's start, an agent's view after a seq, texts by id. */
export class ContextQueries {
  private readonly cache: StatementCache;

  constructor(
    db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  /** The message `messageId` of the session (through a fork's prefix) and its start; null when none. */
  start(sessionId: string, messageId: string): MessageStart | null {
    let found: MessageStart | null = null;
    for (const segment of this.lineage.segments(sessionId)) {
      const row = this.cache
        .get(
          `SELECT ${ROW_COLUMNS}, coalesce(first_seq, seq) AS start FROM message_rows
           WHERE sid = ${SID_OF} AND id = ? AND seq > ? AND seq <= ?`,
        )
        .raw()
        .get(sessionId, segment.session, messageId, segment.after, segment.upTo) as unknown[] | undefined;
      if (!row) continue;
      const startSeq = row.pop() as number;
      const [stored] = messageRows([row]);
      if (stored) found = { message: toStoredMessage(stored), startSeq };
    }
    return found;
  }

  /**
   * The messages after `afterSeq` no longer streaming that can be in `agent`'s view: its own, and
   * those addressed to it or to everyone (routing decides which of these it was shown). Light
   * rows (see ViewMessage): no usage details, and content only where the inspector counts it.
   */
  viewAfter(sessionId: string, agent: string, afterSeq: number): ViewMessage[] {
    const found: ViewMessage[] = [];
    for (const segment of this.segmentsAfter(sessionId, afterSeq)) {
      const rows = this.cache
        .get(
          `SELECT ${VIEW_COLUMNS} FROM message_rows
           WHERE sid = (SELECT sid FROM sessions WHERE id = @session) AND seq > @after AND seq <= @upTo
             AND state <> 'streaming' AND (sender = @agent OR receiver = @agent OR receiver = '${BROADCAST}')
           ORDER BY seq`,
        )
        .raw()
        .all({ session: segment.session, agent, after: segment.after, upTo: segment.upTo }) as ViewTuple[];
      for (const row of rows) found.push(viewMessage(row));
    }
    return found;
  }

  /** The content of these messages by id (through a fork's prefix); ids it lacks are left out. */
  messageTexts(sessionId: string, ids: readonly string[]): Map<string, string> {
    const texts = new Map<string, string>();
    if (ids.length === 0) return texts;
    for (const segment of this.lineage.segments(sessionId)) {
      const rows = this.cache
        .get(
          `SELECT id, content FROM message_rows WHERE sid = ${SID_OF} AND seq > ? AND seq <= ?
             AND id IN (SELECT value FROM json_each(?))`,
        )
        .all(segment.session, segment.after, segment.upTo, JSON.stringify(ids)) as Array<{
        id: string;
        content: string;
      }>;
      for (const row of rows) texts.set(row.id, row.content);
    }
    return texts;
  }

  private segmentsAfter(sessionId: string, afterSeq: number): LineageSegment[] {
    return this.lineage
      .segments(sessionId)
      .map((segment) => clip(segment, afterSeq, Number.MAX_SAFE_INTEGER))
      .filter((segment): segment is LineageSegment => segment !== null);
  }
}
