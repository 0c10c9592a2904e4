import type { ToolCall } from '@shared/domain';

/** Why a model call failed; `aborted` is a cancellation, never a provider fault. */
export type ProviderErrorCode =
  | 'rate-limited'
  | 'server-error'
  | 'auth'
  | 'bad-request'
  | 'connection'
  | 'stalled'
  | 'disconnected'
  | 'malformed-stream'
  /** A 2xx answer that is no chat completion at all (a web page, plain text, foreign JSON). */
  | 'unexpected-response'
  /** A completion without any choices: the server answered but said nothing. */
  | 'empty-reply'
  | 'missing-api-key'
  /** The provider has no address to send its requests (and key) to. */
  | 'no-address'
  | 'aborted';

/** What had arrived before the call failed, so the message can be kept as partial. */
export interface PartialOutput {
  content: string;
  toolCalls: ToolCall[];
}

/**
 * A model call failure with a sentence a person understands. The message never contains an API
 * key: clients redact their key before building one.
 */
export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly partial: PartialOutput = { content: '', toolCalls: [] },
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Replaces every occurrence of each secret with a marker. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result;
}
