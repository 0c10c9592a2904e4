import type { ErrorCode } from '@shared/contract';
import { HistoryError } from '../../history';
import { TransferError } from '../../interop/import';

/** An error a handler means to show the caller: a code and a sentence a person understands. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

const HISTORY_CODES: Record<HistoryError['code'], ErrorCode> = {
  'not-found': 'not-found',
  'unknown-session': 'not-found',
  'ambiguous-id': 'invalid-input',
  'out-of-order': 'conflict',
  'read-only': 'read-only',
  'invalid-input': 'invalid-input',
  'store-full': 'io-error',
  'store-locked': 'unavailable',
};

/** Turns the services' own errors into AppErrors; anything else is rethrown unchanged. */
export function toAppError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof HistoryError) return new AppError(HISTORY_CODES[error.code], error.message);
  if (error instanceof TransferError) return new AppError(error.code, error.message);
  return error;
}
