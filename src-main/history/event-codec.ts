import type { EventBody, Message, RunEvent, TokenUsage, ToolCall } from '@shared/domain';
import type { SqliteDatabase } from './database';
import type { ReferredRow, StoredEventRow } from './rows';
import { EVENT_KIND_CODES } from './migrations/010-short-event-kinds';
import { REFERRED_COLUMNS, referredRowsOf } from './raw-rows';

export type { ReferredRow, StoredEventRow } from './rows';

/**
 * How events are stored without repeating the message text (migration 009). An `event_log` row
 * with `msg` set refers to `message_rows.pk = msg`, a message of the session that stored the
 * event, and its payload keeps only what that row does not hold:
 *
 * - `message.started`: '' (id, thread, parent, sender, receiver and kind are the row's);
 * - `message.delta`: `[offset, length]` into the row's content, in UTF-16 code units;
 * - `message.completed`: the message's fields the row lacks (usage, a `streaming` state), as a
 *   JSON object without `message`, `[prompt, completion]` when that is only the usage, or ''
 *   when there are none;
 * - `usage`: `[prompt, completion]`;
 * - `tool.requested`: `[index]` of the call in the row's tool calls (the same id, name and
 *   arguments), else the payload without `messageId`;
 * - any other kind: the payload without its `messageId` (the row's id).
 *
 * The writer keeps each referred row true for its events: a row's text only grows while its
 * message streams, and before a row changes in any other way (a completion with other text or
 * envelope, a second completion, a fork dropping a streaming reply) the events that read from it
 * are written out whole (`msg` null). A payload that still holds its text (every event stored
 * before 009, and those written out whole) is used as it is.
 *
 * Events that refer to no row (`msg` null) store their payload as JSON, except (from 010 on):
 * - `agent.status` / `session.status`: the bare status (`thinking`), never starting with `{`;
 * - `tool.executed`: `[callId, name, result, isError as 0 or 1]` when those are its only fields.
 * A payload stored as a JSON object (every such event before 010) is used as it is.
 *
 * The event's kind is stored as a one-letter code in `kind_code` (migration 010), which the
 * generated `kind` column reads back; `storedKind` gives what to insert.
 */

const parseObject = (payload: string): Record<string, unknown> =>
  payload === '' ? {} : (JSON.parse(payload) as Record<string, unknown>);

const usageOf = (payload: string): TokenUsage => {
  const [prompt, completion] = JSON.parse(payload) as [number, number];
  return { prompt, completion };
};

/** `[prompt, completion]` for a usage with exactly those two fields, else null. */
export function compactUsage(usage: unknown): string | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const keys = Object.keys(usage);
  if (keys.length !== 2 || keys[0] !== 'prompt' || keys[1] !== 'completion') return null;
  const { prompt, completion } = usage as TokenUsage;
  return Number.isSafeInteger(prompt) && Number.isSafeInteger(completion)
    ? `[${prompt},${completion}]`
    : null;
}

/** The message a completion stored without its text, from its row plus what the row lacks. */
function messageOf(row: ReferredRow, rest: Record<string, unknown>): Message {
  const message: Record<string, unknown> = {
    id: row.id,
    threadId: row.thread_id,
    parentId: row.parent_id,
    from: row.sender,
    to: row.receiver,
    kind: row.kind,
    content: row.content,
    meta: JSON.parse(row.meta) as unknown,
  };
  if (row.tool_calls !== null) message.toolCalls = JSON.parse(row.tool_calls) as unknown;
  if (row.tool_results !== null) message.toolResults = JSON.parse(row.tool_results) as unknown;
  message.state = row.state;
  message.t = row.t;
  return { ...message, ...rest } as unknown as Message;
}

const CODE_OF_KIND = new Map(EVENT_KIND_CODES.map(([code, kind]) => [kind, code]));

/** What `event_log.kind_code` stores for a kind: its code, or its name when it has none. */
export function storedKind(kind: string): string {
  return CODE_OF_KIND.get(kind) ?? kind;
}

/** The stored payload of an event that refers to no message row (see the top). */
export function encodeUnreferred(event: EventBody): string {
  switch (event.kind) {
    case 'agent.status':
    case 'session.status':
      if (onlyKeys(event.payload, ['status']) && /^[a-z-]+$/.test(event.payload.status))
        return event.payload.status;
      break;
    case 'tool.executed': {
      const { callId, name, result, isError } = event.payload;
      if (
        onlyKeys(event.payload, ['callId', 'name', 'result', 'isError']) &&
        typeof callId === 'string' &&
        typeof name === 'string' &&
        typeof result === 'string' &&
        typeof isError === 'boolean'
      )
        return JSON.stringify([callId, name, result, isError ? 1 : 0]);
      break;
    }
    default:
      break;
  }
  return JSON.stringify(event.payload);
}

const onlyKeys = (value: object, keys: readonly string[]): boolean => {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
};

/** The payload of an event stored without a message row (`msg` null). */
function decodeUnreferred(kind: string, payload: string): unknown {
  if (payload.startsWith('{')) return JSON.parse(payload) as unknown;
  switch (kind) {
    case 'agent.status':
    case 'session.status':
      return { status: payload };
    case 'tool.executed': {
      const [callId, name, result, isError] = JSON.parse(payload) as [string, string, string, number];
      return { callId, name, result, isError: isError === 1 };
    }
    default:
      return JSON.parse(payload) as unknown;
  }
}

/** The payload a stored row stands for. `row` is the row `stored.msg` refers to (when set). */
export function decodePayload(stored: StoredEventRow, row: ReferredRow | undefined): unknown {
  if (stored.msg === null) return decodeUnreferred(stored.kind, stored.payload);
  if (row === undefined) {
    throw new Error(
      `Event ${stored.seq} refers to message row ${stored.msg}, which the store no longer has.`,
    );
  }
  switch (stored.kind) {
    case 'message.started': {
      const payload = parseObject(stored.payload);
      if ('messageId' in payload) return payload;
      return {
        messageId: row.id,
        threadId: row.thread_id,
        parentId: row.parent_id,
        from: row.sender,
        to: row.receiver,
        kind: row.kind,
      };
    }
    case 'message.delta': {
      const payload = JSON.parse(stored.payload) as unknown;
      if (Array.isArray(payload)) {
        const [offset, length] = payload as [number, number];
        return { messageId: row.id, text: row.content.slice(offset, offset + length) };
      }
      return { messageId: row.id, ...(payload as Record<string, unknown>) };
    }
    case 'message.completed': {
      if (stored.payload.startsWith('[')) {
        return { message: messageOf(row, { usage: usageOf(stored.payload) }) };
      }
      const payload = parseObject(stored.payload);
      if ('message' in payload) return payload;
      return { message: messageOf(row, payload) };
    }
    case 'tool.requested':
      if (stored.payload.startsWith('[')) {
        const [index] = JSON.parse(stored.payload) as [number];
        const call = (JSON.parse(row.tool_calls ?? '[]') as ToolCall[])[index];
        if (!call) throw new Error(`Event ${stored.seq} names tool call ${index}, which its message lacks.`);
        return { messageId: row.id, callId: call.id, name: call.name, arguments: call.arguments };
      }
      return { messageId: row.id, ...parseObject(stored.payload) };
    case 'usage':
      if (stored.payload.startsWith('[')) return { messageId: row.id, usage: usageOf(stored.payload) };
      return { messageId: row.id, ...parseObject(stored.payload) };
    default: {
      const payload = parseObject(stored.payload);
      return 'messageId' in payload ? payload : { ...payload, messageId: row.id };
    }
  }
}

/**
 * Reads stored event rows back as RunEvents. The message rows a batch refers to are read in one
 * query, each once per call: a statement run per referred row cost more than decoding itself.
 * A fork reads its parent's rows through this too: `msg` names a row of the session that stored
 * the event, whatever session is being read.
 */
export class EventDecoder {
  private readonly referred;
  private readonly referredMany;

  constructor(db: SqliteDatabase) {
    this.referred = db.prepare(`SELECT ${REFERRED_COLUMNS} FROM message_rows WHERE pk = ?`);
    // `pk` is the rowid: each listed key is one rowid lookup. Rows come back as arrays (see
    // raw-rows.ts for why).
    this.referredMany = db
      .prepare(
        `SELECT pk, ${REFERRED_COLUMNS} FROM message_rows WHERE pk IN (SELECT value FROM json_each(?))`,
      )
      .raw();
  }

  /** The message rows `rows` refer to, by `pk` (a row the store no longer has is absent). */
  referredRows(rows: readonly StoredEventRow[]): Map<number, ReferredRow> {
    const keys = new Set<number>();
    for (const stored of rows) if (stored.msg !== null) keys.add(stored.msg);
    const found = new Map<number, ReferredRow>();
    if (keys.size === 0) return found;
    if (keys.size === 1) {
      const key = keys.values().next().value as number;
      const row = this.referred.get(key) as ReferredRow | undefined;
      if (row) found.set(key, row);
      return found;
    }
    for (const [pk, row] of referredRowsOf(this.referredMany.all(JSON.stringify([...keys]))))
      found.set(pk, row);
    return found;
  }

  /** `rows` as events of `sessionId` (the session asked about). */
  decode(rows: readonly StoredEventRow[], sessionId: string): RunEvent[] {
    const referred = this.referredRows(rows);
    return rows.map(
      (stored) =>
        // Only the store writes events, from typed RunEvents, so kind and payload agree.
        ({
          sessionId,
          seq: stored.seq,
          t: stored.t,
          agent: stored.agent,
          kind: stored.kind,
          payload: decodePayload(stored, stored.msg === null ? undefined : referred.get(stored.msg)),
        }) as RunEvent,
    );
  }

  /**
   * The same events as `decode`, with one lookup per referred row: the baseline the seek-decode
   * bench and the decoding tests compare `decode` with.
   */
  decodeRowByRow(rows: readonly StoredEventRow[], sessionId: string): RunEvent[] {
    const cache = new Map<number, ReferredRow | undefined>();
    return rows.map((stored) => {
      let row: ReferredRow | undefined;
      if (stored.msg !== null) {
        if (cache.has(stored.msg)) row = cache.get(stored.msg);
        else {
          row = this.referred.get(stored.msg) as ReferredRow | undefined;
          cache.set(stored.msg, row);
        }
      }
      return {
        sessionId,
        seq: stored.seq,
        t: stored.t,
        agent: stored.agent,
        kind: stored.kind,
        payload: decodePayload(stored, row),
      } as RunEvent;
    });
  }

  /** The payload of one stored row (the writer's own reads, e.g. before a row's text changes). */
  payloadOf(stored: StoredEventRow): unknown {
    const row = stored.msg === null ? undefined : (this.referred.get(stored.msg) as ReferredRow | undefined);
    return decodePayload(stored, row);
  }
}

/** The columns a reader selects from `event_log` for the decoder. */
export const STORED_EVENT_COLUMNS = 'seq, t, kind, agent, msg, payload';

/** The session's integer key for its text id, as a subquery for `event_log` / `message_rows`. */
export const SID_OF = '(SELECT sid FROM sessions WHERE id = ?)';

/** A completion's stored payload: the message fields its row does not hold (see the top). */
export function completionPayload(message: Message): string {
  const rest = completionRest(message);
  const keys = Object.keys(rest);
  if (keys.length === 1 && keys[0] === 'usage') return compactUsage(rest.usage) ?? JSON.stringify(rest);
  return compactJson(rest);
}

/** What a completion's stored payload keeps: the message fields its row does not hold. */
function completionRest(message: Message): Record<string, unknown> {
  const {
    id: _id,
    threadId: _thread,
    parentId: _parent,
    from: _from,
    to: _to,
    kind: _kind,
    content: _content,
    meta: _meta,
    toolCalls: _toolCalls,
    toolResults: _toolResults,
    t: _t,
    state,
    ...rest
  } = message;
  // The row holds 'partial' or 'complete' (see Materializer.complete); any other state is kept.
  return state === 'partial' || state === 'complete' ? rest : { ...rest, state };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether SQLite gives these strings back exactly. A lone UTF-16 surrogate (a pair split across
 * two deltas, say) is not valid UTF-8 and comes back changed, so text with one is stored whole
 * in its event, as JSON escapes keep it.
 */
export function readsBackExactly(...values: ReadonlyArray<string | null>): boolean {
  return values.every((value) => value === null || !LONE_SURROGATE.test(value));
}

/**
 * Where a requested call sits in its message's stored tool calls (`tool_calls` JSON), when it is
 * there with the same id, name and arguments and no other fields; else null.
 */
export function toolCallIndex(
  toolCalls: string | null,
  requested: { callId: string; name: string; arguments: string },
): number | null {
  if (toolCalls === null) return null;
  const calls = JSON.parse(toolCalls) as Array<Record<string, unknown>>;
  const index = calls.findIndex(
    (call) =>
      call.id === requested.callId &&
      call.name === requested.name &&
      call.arguments === requested.arguments &&
      Object.keys(call).length === 3,
  );
  return index < 0 ? null : index;
}

/** A stored payload: '' for an empty object (most starts and completions). */
export function compactJson(value: Record<string, unknown>): string {
  for (const _key in value) return JSON.stringify(value);
  return '';
}
