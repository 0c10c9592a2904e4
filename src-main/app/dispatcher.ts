import { ZodError, type z } from 'zod';
import {
  contract,
  MAX_PAYLOAD_BYTES,
  type ChannelName,
  type Output,
  type ParsedInput,
  type Result,
} from '@shared/contract';
import { AppError, toAppError } from './errors';
import type { EventClient } from './event-client';

/** Who is calling, as the binding knows it. */
export interface CallContext {
  surface: 'desktop' | 'browser' | 'cli';
  /**
   * The connection the call came over (a browser socket, a desktop window), when it receives
   * events; `sessions.watch` sets which live run events it gets. None for the CLI.
   */
  client?: EventClient;
}

/** Deepest nesting of arrays and objects a payload may have (a fleet nests teams a few levels). */
export const MAX_PAYLOAD_DEPTH = 64;
/** Most arrays, objects and values a payload may hold, counted before anything else reads it. */
export const MAX_PAYLOAD_NODES = 1_000_000;

export type Handler<C extends ChannelName> = (
  input: ParsedInput<C>,
  context: CallContext,
) => Output<C> | Promise<Output<C>>;

export type Handlers = { [C in ChannelName]: Handler<C> };

function isChannel(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(contract, name);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(payload)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Transport-agnostic entry for every call: checks the channel, the size and the payload's schema,
 * runs the handler, and turns every failure into `{ ok: false, error }`. Never throws.
 */
export class Dispatcher {
  constructor(private readonly handlers: Handlers) {}

  async dispatch(channel: unknown, payload: unknown, context: CallContext): Promise<Result<unknown>> {
    if (!isChannel(channel)) {
      return fail('unknown-channel', `Unknown channel: ${String(channel).slice(0, 80)}`);
    }
    const spec = contract[channel];
    const shape = measureShape(payload);
    if (shape === 'too-many-nodes') {
      return fail('too-large', `Payload has more than ${MAX_PAYLOAD_NODES} values`);
    }
    if (shape === 'too-deep') {
      return fail('too-large', `Payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
    }
    const limit = 'maxBytes' in spec && typeof spec.maxBytes === 'number' ? spec.maxBytes : MAX_PAYLOAD_BYTES;
    const size = approximateSize(payload);
    if (size === Number.POSITIVE_INFINITY) {
      return fail('invalid-input', 'Payload is not plain data (it cannot be written as JSON)');
    }
    if (size > limit) {
      return fail('too-large', `Payload of ${size} bytes exceeds the ${limit}-byte limit`);
    }
    const parsed = safeParse(spec.input, payload ?? {});
    if (!parsed.success) {
      return fail('invalid-input', `Invalid input for ${channel}: ${describeIssues(parsed.error)}`);
    }
    try {
      const handler = this.handlers[channel] as Handler<typeof channel>;
      const value = await handler(parsed.data as never, context);
      return { ok: true, value };
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error instanceof AppError) return fail(error.code, error.message);
      const message = error instanceof Error ? error.message : String(error);
      return fail('internal', `${channel} failed: ${message}`);
    }
  }
}

function fail(code: AppError['code'], message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

/** A schema's verdict; a schema that throws (it should not) counts as a refusal. */
function safeParse(schema: z.ZodType, payload: unknown): ReturnType<z.ZodType['safeParse']> {
  try {
    return schema.safeParse(payload);
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return { success: false, error: new ZodError([{ code: 'custom', path: [], message, input: payload }]) };
  }
}

/**
 * Walks a payload without recursion (so no payload can overflow the stack) and says whether it
 * is too deep or holds too many values. Shared references (structured clone keeps them) are
 * counted each time they are reached, so the walk is bounded by the node budget too.
 */
export function measureShape(payload: unknown): 'ok' | 'too-deep' | 'too-many-nodes' {
  const stack: Array<[unknown, number]> = [[payload, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (++nodes > MAX_PAYLOAD_NODES) return 'too-many-nodes';
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_PAYLOAD_DEPTH) return 'too-deep';
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return 'ok';
}

/** Serialized size in bytes, or Infinity for values that cannot be serialized. */
export function approximateSize(payload: unknown): number {
  try {
    const text = JSON.stringify(payload ?? null);
    return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
