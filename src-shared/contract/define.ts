import { z } from 'zod';

/** A command changes something; a query only reads. Both are request/response. */
export type CallKind = 'command' | 'query';

export interface CallSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly kind: CallKind;
  readonly input: I;
  readonly output: O;
  readonly summary: string;
  /** Largest serialized payload accepted, in bytes; MAX_PAYLOAD_BYTES when unset. */
  readonly maxBytes?: number;
}

export function command<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O,
  summary: string,
  options: { maxBytes?: number } = {},
): CallSpec<I, O> {
  return { kind: 'command', input, output, summary, ...options };
}

export function query<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O,
  summary: string,
): CallSpec<I, O> {
  return { kind: 'query', input, output, summary };
}

/** Error codes every handler may return. */
export const ERROR_CODES = [
  'unknown-channel',
  'invalid-input',
  'too-large',
  'not-found',
  'conflict',
  'read-only',
  'unavailable',
  'provider-error',
  'io-error',
  'forbidden',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const callErrorSchema = z.object({ code: z.enum(ERROR_CODES), message: z.string() });
export type CallError = z.infer<typeof callErrorSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: CallError };

/** Largest serialized payload a binding accepts, in bytes. */
export const MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;
