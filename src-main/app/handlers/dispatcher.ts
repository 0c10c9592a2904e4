import { ZodError, type z } from 'zod';
import {
  contract,
  MAX_PAYLOAD_BYTES,
  type ChannelName,
  type Output,
  type ParsedInput,
  type Result,
} from '@shared/contract';
import { silentLogger, type Logger } from '@shared/logger';
import { AppError, toAppError } from './errors';
import type { EventClient } from '../delivery/event-client';

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
  constructor(
    private readonly handlers: Handlers,
    /** Where failures that are our fault (not the caller's) are written, with the channel. */
    private readonly logger: Logger = silentLogger,
  ) {}

  async dispatch(channel: unknown, payload: unknown, context: CallContext): Promise<Result<unknown>> {
    if (!isChannel(channel)) {
      return fail('unknown-channel', `Unknown channel: ${String(channel).slice(0, 80)}`);
    }
    const spec = contract[channel];
    const limit = 'maxBytes' in spec && typeof spec.maxBytes === 'number' ? spec.maxBytes : MAX_PAYLOAD_BYTES;
    const measured = measurePayload(payload, limit);
    switch (measured.verdict) {
      case 'too-many-nodes':
        return fail('too-large', `Payload has more than ${MAX_PAYLOAD_NODES} values`);
      case 'too-deep':
        return fail('too-large', `Payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
      case 'not-json':
        return fail('invalid-input', 'Payload is not plain data (it cannot be written as JSON)');
      case 'too-large':
        return fail('too-large', `Payload of more than ${limit} bytes exceeds the ${limit}-byte limit`);
      case 'ok':
        break;
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
      this.logger.error('A call failed inside its handler', { channel, err: error });
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
 * Walks a payload once, without recursion (so no payload can overflow the stack) and without
 * serializing it (a large import must not be copied a second time), and says whether it is too
 * deep, holds too many values, is not JSON data, or is larger than `limitBytes` once written as
 * JSON (estimated from its strings' UTF-8 sizes, numbers and punctuation; the walk stops as soon
 * as the limit is passed). Shared references (structured clone keeps them) are counted each time
 * they are reached, so the walk is bounded by the node budget too.
 */
export function measurePayload(
  payload: unknown,
  limitBytes: number,
): { verdict: 'ok' | 'too-deep' | 'too-many-nodes' | 'not-json' | 'too-large'; bytes: number } {
  const stack: Array<[unknown, number]> = [[payload ?? null, 0]];
  let nodes = 0;
  let bytes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (++nodes > MAX_PAYLOAD_NODES) return { verdict: 'too-many-nodes', bytes };
    switch (typeof value) {
      case 'string':
        bytes += Buffer.byteLength(value, 'utf8') + 2;
        break;
      case 'number':
        bytes += Number.isFinite(value) ? String(value).length : 4;
        break;
      case 'boolean':
        bytes += 5;
        break;
      case 'bigint':
        return { verdict: 'not-json', bytes };
      case 'object': {
        if (value === null) {
          bytes += 4;
          break;
        }
        if (depth >= MAX_PAYLOAD_DEPTH) return { verdict: 'too-deep', bytes };
        if (Array.isArray(value)) {
          bytes += 2 + value.length;
          for (const child of value) stack.push([child, depth + 1]);
        } else {
          const entries = Object.entries(value);
          bytes += 2 + entries.length;
          for (const [key, child] of entries) {
            bytes += Buffer.byteLength(key, 'utf8') + 3;
            stack.push([child, depth + 1]);
          }
        }
        break;
      }
      default:
        break; // functions, symbols and undefined are left out of JSON, as JSON.stringify does
    }
    if (bytes > limitBytes) return { verdict: 'too-large', bytes };
  }
  return { verdict: 'ok', bytes };
}
