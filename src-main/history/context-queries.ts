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

/**
 * A message of an agent's view (`@agent`) that its provider counted and that reads as one chat
 * turn whose tokens are that count (a sender's name aside): not streaming, not a person's, not an
 * error (whose routing reads its meta), and to or from the agent or to everyone. Every column it
 * reads is in `message_rows_view_groups`.
 */
const COUNTED = `state <> 'streaming' AND sender <> '${USER}' AND coalesce(completion_tokens, 0) > 0 AND kind <> 'error'
  AND (sender = @agent OR receiver = @agent OR receiver = '${BROADCAST}')`;

/** A message with tool calls or results: `message_rows_tool_turns` lists these. */
const HAS_TOOLS = '(tool_calls IS NOT NULL OR tool_results IS NOT NULL)';

/** What an agent's view gained after a seq (see ContextQueries.viewAfter). */
export interface ViewRead {
  counted: CountedSum[];
  detail: ViewMessage[];
}

/** What `countedSums` gives per sender, receiver and kind. */
export interface CountedSum {
  sender: string;
  receiver: string;
  kind: string;
  messages: number;
  completionTokens: number;
  firstSeq: number;
  lastSeq: number;
}

/** The sender, receiver and kind of a message: what routing reads, and what sums are kept by. */
export type MessageGroup = Pick<CountedSum, 'sender' | 'receiver' | 'kind'>;

/** The key a counted sum is kept under: its sender, receiver and kind. */
export const countedSumKey = (sender: string, receiver: string, kind: string): string =>
  `${sender}\u0000${receiver}\u0000${kind}`;

/** The `messages` view's columns, read from `message_rows` (which also has `first_seq`). */
const ROW_COLUMNS = MESSAGE_ROW_COLUMNS.replace('session_id', '? AS session_id');

/** Reads for the context inspector: a message's start, an agent's view after a seq, texts by id. */
export class ContextQueries {
  private readonly cache: StatementCache;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly lineage: Lineage,
  ) {
    this.cache = new StatementCache(db);
  }

  /**
   * What `agent`'s view gained after `afterSeq`, read in one transaction (so a writer in another
   * process cannot slip a message between the two reads): the sums of its counted messages
   * (`countedSums`) and the messages they cannot stand for (`detailAfter`).
   */
  viewAfter(sessionId: string, agent: string, afterSeq: number): ViewRead {
    return this.db.transaction(() => {
      const { counted, uncounted } = this.scan(sessionId, agent, afterSeq, Number.MAX_SAFE_INTEGER);
      return { counted, detail: this.detailAfter(sessionId, agent, afterSeq, uncounted) };
    })();
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
   * Sums over the counted messages of `agent`'s view with `after < seq <= upTo`, per sender,
   * receiver and kind (which decide routing): messages no longer streaming, not a person's and
   * not errors, whose provider counted them, that can be in the view (see COUNTED). Walks only the
   * `message_rows_view_groups` index. The agent's own messages with tool calls or results are in
   * these sums too (the index does not know them); `detailAfter` reads them.
   */
  countedSums(sessionId: string, agent: string, after: number, upTo: number): CountedSum[] {
    return this.scan(sessionId, agent, after, upTo).counted;
  }

  /**
   * The view's candidates with `after < seq <= upTo`, group by group (see `viewGroups`), each
   * one range of `message_rows_view_groups` read in index order: the counted ones summed
   * (`countedSums`), and the seqs of the others. A person's messages and errors are never counted.
   */
  private scan(
    sessionId: string,
    agent: string,
    after: number,
    upTo: number,
  ): { counted: CountedSum[]; uncounted: number[] } {
    const sums = new Map<string, CountedSum>();
    const uncounted: number[] = [];
    const groupSums = this.cache
      .get(
        `SELECT count(*) FILTER (WHERE completion_tokens > 0), sum(completion_tokens) FILTER (WHERE completion_tokens > 0),
           min(seq) FILTER (WHERE completion_tokens > 0), max(seq) FILTER (WHERE completion_tokens > 0),
           json_group_array(seq) FILTER (WHERE @never OR coalesce(completion_tokens, 0) <= 0)
         FROM message_rows INDEXED BY message_rows_view_groups
         WHERE sid = @sid AND sender = @sender AND receiver = @receiver AND kind = @kind
           AND seq > @after AND seq <= @upTo AND state <> 'streaming'`,
      )
      .raw();
    for (const segment of this.segmentsWithin(sessionId, after, upTo)) {
      const sid = this.sidOf(segment.session);
      if (sid === null) continue;
      for (const group of this.viewGroups(sid, agent)) {
        const never = group.sender === USER || group.kind === 'error';
        const [messages, completionTokens, firstSeq, lastSeq, others] = groupSums.get({
          ...group,
          sid,
          after: segment.after,
          upTo: segment.upTo,
          never: never ? 1 : 0,
        }) as [number, number | null, number | null, number | null, string];
        for (const seq of JSON.parse(others) as number[]) uncounted.push(seq);
        if (never || messages === 0) continue;
        const key = countedSumKey(group.sender, group.receiver, group.kind);
        const sum = sums.get(key);
        const found = {
          messages,
          completionTokens: completionTokens ?? 0,
          firstSeq: firstSeq ?? 0,
          lastSeq: lastSeq ?? 0,
        };
        if (!sum) sums.set(key, { ...group, ...found });
        else {
          sum.messages += found.messages;
          sum.completionTokens += found.completionTokens;
          sum.firstSeq = Math.min(sum.firstSeq, found.firstSeq);
          sum.lastSeq = Math.max(sum.lastSeq, found.lastSeq);
        }
      }
    }
    return { counted: [...sums.values()], uncounted };
  }

  /**
   * The (sender, receiver, kind) groups of session `sid`'s messages that can be in `agent`'s view
   * (from or to it, or to everyone), found by seeking `message_rows_view_groups` from one
   * distinct value to the next: a few index probes per group, whatever the session's length.
   */
  private viewGroups(sid: number, agent: string): MessageGroup[] {
    const index = 'message_rows INDEXED BY message_rows_view_groups';
    const nextSender = this.cache
      .get(`SELECT sender FROM ${index} WHERE sid = ? AND sender > ? ORDER BY sender LIMIT 1`)
      .pluck();
    const nextReceiver = this.cache
      .get(
        `SELECT receiver FROM ${index} WHERE sid = ? AND sender = ? AND receiver > ? ORDER BY receiver LIMIT 1`,
      )
      .pluck();
    const nextKind = this.cache
      .get(
        `SELECT kind FROM ${index} WHERE sid = ? AND sender = ? AND receiver = ? AND kind > ? ORDER BY kind LIMIT 1`,
      )
      .pluck();
    const groups: MessageGroup[] = [];
    const next = (statement: typeof nextSender, ...keys: unknown[]) =>
      statement.get(...keys) as string | undefined;
    for (let sender = next(nextSender, sid, ''); sender !== undefined; sender = next(nextSender, sid, sender))
      for (
        let receiver = next(nextReceiver, sid, sender, '');
        receiver !== undefined;
        receiver = next(nextReceiver, sid, sender, receiver)
      ) {
        if (sender !== agent && receiver !== agent && receiver !== BROADCAST) continue;
        for (
          let kind = next(nextKind, sid, sender, receiver, '');
          kind !== undefined;
          kind = next(nextKind, sid, sender, receiver, kind)
        )
          groups.push({ sender, receiver, kind });
      }
    return groups;
  }

  private sidOf(sessionId: string): number | null {
    const sid = this.cache.get('SELECT sid FROM sessions WHERE id = ?').pluck().get(sessionId) as
      number | undefined;
    return sid ?? null;
  }

  /**
   * The messages after `afterSeq` of `agent`'s view that `countedSums` cannot stand for, in seq
   * order, as light rows (see ViewMessage): a person's, errors, those no provider counted, and the
   * agent's own tool calls and results.
   */
  private detailAfter(
    sessionId: string,
    agent: string,
    afterSeq: number,
    uncounted: readonly number[],
  ): ViewMessage[] {
    const found: ViewMessage[] = [];
    const asked = JSON.stringify(uncounted);
    for (const segment of this.segmentsWithin(sessionId, afterSeq, Number.MAX_SAFE_INTEGER)) {
      const params = { session: segment.session, agent, after: segment.after, upTo: segment.upTo };
      const others = this.cache
        .get(
          `SELECT ${VIEW_COLUMNS} FROM message_rows
           WHERE sid = (SELECT sid FROM sessions WHERE id = @session) AND +seq > @after AND +seq <= @upTo
             AND seq IN (SELECT value FROM json_each(@asked))`,
        )
        .raw()
        .all({ ...params, asked }) as ViewTuple[];
      const tools = this.cache
        .get(
          `SELECT ${VIEW_COLUMNS} FROM message_rows INDEXED BY message_rows_tool_turns
           WHERE sid = (SELECT sid FROM sessions WHERE id = @session) AND sender = @agent
             AND seq > @after AND seq <= @upTo AND ${HAS_TOOLS} AND state <> 'streaming'`,
        )
        .raw()
        .all(params) as ViewTuple[];
      // The agent's own uncounted tool turns are in both.
      const toolSeqs = new Set(tools.map((row) => row[1]));
      const rows = [...others.filter((row) => !toolSeqs.has(row[1])), ...tools].sort((a, b) => a[1] - b[1]);
      for (const row of rows) found.push(viewMessage(row));
    }
    return found;
  }

  /**
   * Up to `limit` of the counted messages `countedSums` stands for (the agent's own tool calls and
   * results left out) with a seq below `beforeSeq` in the given groups, newest first, as light
   * rows: the last `limit` of each group (one index range each), merged.
   */
  countedBefore(
    sessionId: string,
    agent: string,
    beforeSeq: number,
    limit: number,
    groups: readonly MessageGroup[],
  ): ViewMessage[] {
    const found: ViewMessage[] = [];
    // The seqs first (from the index; a row is read only for an own message's tool columns),
    // then the rows of the last `limit` of them.
    const lastOfGroup = this.cache
      .get(
        `SELECT seq FROM message_rows INDEXED BY message_rows_view_groups
         WHERE sid = @sid AND sender = @sender AND receiver = @receiver AND kind = @kind
           AND seq > @after AND seq <= @upTo AND ${COUNTED} AND NOT (sender = @agent AND ${HAS_TOOLS})
         ORDER BY seq DESC LIMIT @limit`,
      )
      .pluck();
    const rowsAt = this.cache
      .get(
        `SELECT ${VIEW_COLUMNS} FROM message_rows
         WHERE sid = @sid AND seq IN (SELECT value FROM json_each(@seqs)) ORDER BY seq DESC`,
      )
      .raw();
    const segments = this.segmentsWithin(sessionId, 0, beforeSeq - 1).reverse();
    for (const segment of segments) {
      const sid = this.sidOf(segment.session);
      if (sid === null) continue;
      const seqs: number[] = [];
      const wanted = limit - found.length;
      for (const { sender, receiver, kind } of groups) {
        const params = { sid, sender, receiver, kind, agent, after: segment.after, upTo: segment.upTo };
        for (const seq of lastOfGroup.all({ ...params, limit: wanted }) as number[]) seqs.push(seq);
      }
      seqs.sort((a, b) => b - a);
      const rows = rowsAt.all({ sid, agent, seqs: JSON.stringify(seqs.slice(0, wanted)) }) as ViewTuple[];
      for (const row of rows) found.push(viewMessage(row));
      if (found.length >= limit) break;
    }
    return found;
  }

  /**
   * The seq of the first counted message from `sender` to `receiver` of `kind` with
   * `after < seq < before` that carries no tool calls or results; null when none.
   */
  firstPlainCounted(sessionId: string, sum: MessageGroup, after: number, before: number): number | null {
    for (const segment of this.segmentsWithin(sessionId, after, before - 1)) {
      const row = this.cache
        .get(
          `SELECT seq FROM message_rows INDEXED BY message_rows_view_groups
           WHERE sid = (SELECT sid FROM sessions WHERE id = @session) AND sender = @agent AND receiver = @receiver
             AND kind = @kind AND seq > @after AND seq <= @upTo AND ${COUNTED} AND NOT ${HAS_TOOLS}
           ORDER BY seq LIMIT 1`,
        )
        .pluck()
        .get({
          session: segment.session,
          agent: sum.sender,
          receiver: sum.receiver,
          kind: sum.kind,
          after: segment.after,
          upTo: segment.upTo,
        }) as number | undefined;
      if (row !== undefined) return row;
    }
    return null;
  }

  /** The content of these messages by id (through a fork's prefix); ids it lacks are left out. */
  messageTexts(sessionId: string, ids: readonly string[]): Map<string, string> {
    const texts = new Map<string, string>();
    if (ids.length === 0) return texts;
    for (const segment of this.lineage.segments(sessionId)) {
      const rows = this.cache
        .get(
          // The seq bounds (+seq) only filter: the ids are looked up by (sid, id).
          `SELECT id, content FROM message_rows WHERE sid = ${SID_OF} AND +seq > ? AND +seq <= ?
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

  private segmentsWithin(sessionId: string, after: number, upTo: number): LineageSegment[] {
    return this.lineage
      .segments(sessionId)
      .map((segment) => clip(segment, after, upTo))
      .filter((segment): segment is LineageSegment => segment !== null);
  }
}
