import type { Message, TokenUsage } from '@shared/domain';

/** A started message's row: streaming, no text yet; its start is the first event that reads it. */
export const INSERT_STARTED = `INSERT INTO message_rows
  (sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, state, first_seq)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', 'streaming', ?) ON CONFLICT (sid, id) DO NOTHING`;

/** The placeholders of `completedRow`'s values. */
const COMPLETED_VALUES = Array.from({ length: 24 }, () => '?').join(', ');

/** A completed message's row (parameters: `completedRow`), replacing what streamed. */
export const UPSERT_COMPLETED = `INSERT INTO message_rows
  (sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls,
   tool_results, prompt_tokens, completion_tokens, state, ended_t, first_seq,
   cached_tokens, reasoning_tokens, model, first_token_ms, duration_ms, cost)
  VALUES (${COMPLETED_VALUES})
  ON CONFLICT (sid, id) DO UPDATE SET seq = excluded.seq, t = excluded.t,
    thread_id = excluded.thread_id, parent_id = excluded.parent_id, sender = excluded.sender,
    receiver = excluded.receiver, kind = excluded.kind, content = excluded.content, meta = excluded.meta,
    tool_calls = excluded.tool_calls, tool_results = excluded.tool_results,
    prompt_tokens = coalesce(excluded.prompt_tokens, prompt_tokens),
    completion_tokens = coalesce(excluded.completion_tokens, completion_tokens), state = excluded.state,
    ended_t = excluded.ended_t, first_seq = coalesce(first_seq, excluded.first_seq),
    cached_tokens = CASE WHEN excluded.prompt_tokens IS NULL THEN cached_tokens ELSE excluded.cached_tokens END,
    reasoning_tokens = CASE WHEN excluded.prompt_tokens IS NULL THEN reasoning_tokens ELSE excluded.reasoning_tokens END,
    model = CASE WHEN excluded.prompt_tokens IS NULL THEN model ELSE excluded.model END,
    first_token_ms = CASE WHEN excluded.prompt_tokens IS NULL THEN first_token_ms ELSE excluded.first_token_ms END,
    duration_ms = CASE WHEN excluded.prompt_tokens IS NULL THEN duration_ms ELSE excluded.duration_ms END,
    cost = CASE WHEN excluded.prompt_tokens IS NULL THEN cost ELSE excluded.cost END`;

/**
 * A message started and completed by consecutive events, inserted once as the completion leaves
 * it (`completedRow` with the start's seq as `firstSeq`): the row INSERT_STARTED then
 * UPSERT_COMPLETED would leave. Nothing when the session has the message already.
 */
export const INSERT_WHOLE = `INSERT INTO message_rows
  (sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, tool_calls,
   tool_results, prompt_tokens, completion_tokens, state, ended_t, first_seq,
   cached_tokens, reasoning_tokens, model, first_token_ms, duration_ms, cost)
  VALUES (${COMPLETED_VALUES})
  ON CONFLICT (sid, id) DO NOTHING`;

/** A dropped message's row: complete, with the reason, never streamed. */
export const INSERT_DROPPED = `INSERT INTO message_rows
  (sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta, state, dropped_reason)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?) ON CONFLICT (sid, id) DO NOTHING`;

/**
 * The values of UPSERT_COMPLETED and INSERT_WHOLE for `message`, completed by the event at `seq`
 * (positional: binding them is cheaper than named ones, and an import binds one per message).
 * `firstSeq`: the first event that reads the row, when it is inserted by this statement.
 */
export function completedRow(sid: number, message: Message, seq: number, endedT: number, firstSeq: number) {
  return [
    sid,
    message.id,
    seq,
    message.t,
    message.threadId,
    message.parentId,
    message.from,
    message.to,
    message.kind,
    message.content,
    JSON.stringify(message.meta),
    message.toolCalls ? JSON.stringify(message.toolCalls) : null,
    message.toolResults ? JSON.stringify(message.toolResults) : null,
    message.usage?.prompt ?? null,
    message.usage?.completion ?? null,
    // A reply cut off by a stall, a disconnect or a stop stays partial.
    message.state === 'partial' ? 'partial' : 'complete',
    endedT,
    firstSeq,
    ...usageDetails(message.usage),
  ];
}

/**
 * The usage columns of migration 13 besides the token pair, in the order the statements list them:
 * cached and reasoning tokens, model, time to first token, duration, cost (null: unknown).
 */
export function usageDetails(usage: TokenUsage | undefined) {
  return [
    usage?.cached ?? null,
    usage?.reasoning ?? null,
    usage?.model ?? null,
    usage?.firstTokenMs ?? null,
    usage?.durationMs ?? null,
    usage?.cost ?? null,
  ];
}
