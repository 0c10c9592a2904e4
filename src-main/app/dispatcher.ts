import type { z } from 'zod';
import {
  contract,
  MAX_PAYLOAD_BYTES,
  type ChannelName,
  type Output,
  type ParsedInput,
  type Result,
} from '@shared/contract';
import { AppError, toAppError } from './errors';

/** Who is calling, as the binding knows it. */
export interface CallContext {
  surface: 'desktop' | 'browser' | 'cli';
}

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
    const limit = 'maxBytes' in spec && typeof spec.maxBytes === 'number' ? spec.maxBytes : MAX_PAYLOAD_BYTES;
    const size = approximateSize(payload);
    if (size > limit) {
      return fail('too-large', `Payload of ${size} bytes exceeds the ${limit}-byte limit`);
    }
    const parsed = spec.input.safeParse(payload ?? {});
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

/** Serialized size in bytes, or Infinity for values that cannot be serialized. */
export function approximateSize(payload: unknown): number {
  try {
    const text = JSON.stringify(payload ?? null);
    return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
