import type { MessageRow } from './rows';

/** The `messages` columns of a MessageRow, in the order `messageRows` takes them. */
export const MESSAGE_ROW_COLUMNS =
  'pk, session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason';

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
];

/**
 * The rows of a raw statement (`Statement.raw()`) selecting MESSAGE_ROW_COLUMNS, as MessageRows.
 * The driver builds a named row property by property; building it here from its arrays takes
 * about 0.6x the time, which every page of messages (200 on each seek) pays per row.
 */
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
    }),
  );
}
