import type { MessageRow, ReferredRow, StoredEventRow } from './rows';

/**
 * Rows read as arrays (`Statement.raw()`) and made into named rows here. The driver builds a
 * named row property by property; building the same object from its array takes about 0.6x the
 * time, which a seek pays for every event it folds, every message row those events refer to and
 * every message of its page. Each reader selects the columns in the order its tuple lists them.
 */

/** The `message_rows` columns decoding reads, in the order `referredRowsOf` takes them after `pk`. */
export const REFERRED_COLUMNS =
  'id, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls, tool_results, state, t';

/** The `messages` columns of a MessageRow, in the order `messageRows` takes them. */
export const MESSAGE_ROW_COLUMNS =
  'pk, session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, cached_tokens, reasoning_tokens, model, first_token_ms, duration_ms, cost';

type MessageTuple = [
  pk: number,
  session_id: string,
  id: string,
  seq: number,
  t: number,
  thread_id: string,
  parent_id: string | null,
  sender: string,
  receiver: string,
  kind: string,
  content: string,
  meta: string,
  tool_calls: string | null,
  tool_results: string | null,
  prompt_tokens: number | null,
  completion_tokens: number | null,
  state: string,
  dropped_reason: string | null,
  cached_tokens: number | null,
  reasoning_tokens: number | null,
  model: string | null,
  first_token_ms: number | null,
  duration_ms: number | null,
  cost: number | null,
];

/** The rows of a raw statement selecting MESSAGE_ROW_COLUMNS, as MessageRows. */
export function messageRows(raw: readonly unknown[]): MessageRow[] {
  return (raw as MessageTuple[]).map(
    ([
      pk,
      session_id,
      id,
      seq,
      t,
      thread_id,
      parent_id,
      sender,
      receiver,
      kind,
      content,
      meta,
      tool_calls,
      tool_results,
      prompt_tokens,
      completion_tokens,
      state,
      dropped_reason,
      cached_tokens,
      reasoning_tokens,
      model,
      first_token_ms,
      duration_ms,
      cost,
    ]) => ({
      pk,
      session_id,
      id,
      seq,
      t,
      thread_id,
      parent_id,
      sender,
      receiver,
      kind,
      content,
      meta,
      tool_calls,
      tool_results,
      prompt_tokens,
      completion_tokens,
      state,
      dropped_reason,
      cached_tokens,
      reasoning_tokens,
      model,
      first_token_ms,
      duration_ms,
      cost,
    }),
  );
}

/** The rows of a raw statement selecting `event_log`'s STORED_EVENT_COLUMNS, as StoredEventRows. */
export function storedEvents(raw: readonly unknown[]): StoredEventRow[] {
  return (raw as Array<[number, number, string, string | null, number | null, string]>).map(
    ([seq, t, kind, agent, msg, payload]) => ({ seq, t, kind, agent, msg, payload }),
  );
}

type ReferredTuple = [
  pk: number,
  id: string,
  thread_id: string,
  parent_id: string | null,
  sender: string,
  receiver: string,
  kind: string,
  content: string,
  meta: string,
  tool_calls: string | null,
  tool_results: string | null,
  state: string,
  t: number,
];

/** The rows of a raw statement selecting `pk, REFERRED_COLUMNS`, as ReferredRows by `pk`. */
export function referredRowsOf(raw: readonly unknown[]): Array<[number, ReferredRow]> {
  return (raw as ReferredTuple[]).map(
    ([
      pk,
      id,
      thread_id,
      parent_id,
      sender,
      receiver,
      kind,
      content,
      meta,
      tool_calls,
      tool_results,
      state,
      t,
    ]) => [
      pk,
      { id, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls, tool_results, state, t },
    ],
  );
}
