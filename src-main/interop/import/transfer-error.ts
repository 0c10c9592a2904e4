/**
 * Why an import or export failed; callers branch on the code and show the message as is.
 * `too-large`: the input is over one of the import limits; `unavailable`: the import's parsing
 * thread could not run.
 */
export type TransferErrorCode = 'invalid-input' | 'io-error' | 'not-found' | 'too-large' | 'unavailable';

/**
 * The one error import and export throw. The message is a sentence a person understands and, for
 * bad input, names the position (line and column, byte offset or JSON path).
 */
export class TransferError extends Error {
  constructor(
    readonly code: TransferErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransferError';
  }
}

/** Wraps a file-system failure, keeping the errno code (EACCES, ENOENT, ...) in the message. */
export function ioError(action: string, path: string, cause: unknown): TransferError {
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : '';
  const reason = cause instanceof Error ? cause.message : String(cause);
  const errno = code && !reason.includes(code) ? ` (${code})` : '';
  return new TransferError('io-error', `Could not ${action} ${path}: ${reason}${errno}`, { cause });
}
