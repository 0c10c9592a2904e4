import type { ModelCallItem, ModelCallList } from '@shared/contract';
import { ModelCallExpander, type RawMessage, type RunEvent } from '@shared/domain';

/** Characters of message text a page holds before it ends early (it always holds one call). */
export const MODEL_CALL_PAGE_CHARS = 2_000_000;

/**
 * A page of a session's `model.call` events, each expanded to every message its model was sent
 * (the log stores what a call sent again as a count; see `ModelCallExpander`). Calls before
 * `offset` are expanded too, since each may be the base of the next.
 */
export function modelCallList(events: Iterable<RunEvent>, offset: number, limit: number): ModelCallList {
  const expander = new ModelCallExpander();
  const calls: ModelCallItem[] = [];
  let total = 0;
  let chars = 0;
  let nextOffset: number | null = null;
  for (const event of events) {
    if (event.kind !== 'model.call') continue;
    const index = total++;
    const { callId, model, usage, error, sentAgain, inputs, outputs } = event.payload;
    const expanded = expander.expand(event.agent ?? '', { callId, sentAgain, inputs, outputs });
    if (index < offset || nextOffset !== null) continue;
    if (calls.length >= limit || (calls.length > 0 && chars >= MODEL_CALL_PAGE_CHARS)) {
      nextOffset = index;
      continue;
    }
    chars += textLength(expanded.inputs) + textLength(outputs);
    calls.push({
      seq: event.seq,
      t: event.t,
      agent: event.agent,
      callId,
      model,
      usage,
      ...(error ? { error } : {}),
      ...expanded,
    });
  }
  return { calls, total, nextOffset };
}

function textLength(messages: readonly RawMessage[]): number {
  let length = 0;
  for (const message of messages) length += message.text.length;
  return length;
}
