/** Why a store operation was refused. Callers map codes to contract errors. */
export type HistoryErrorCode =
  | 'not-found'
  | 'ambiguous-id'
  | 'out-of-order'
  | 'unknown-session'
  | 'read-only'
  | 'invalid-input'
  | 'store-full'
  | 'store-locked';

export class HistoryError extends Error {
  constructor(
    readonly code: HistoryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HistoryError';
  }
}

/**
 * Why the store cannot go on, in a sentence for the person at the screen (what, where, and what
 * to do). `kind`: full (disk or size limit), locked (another process writes), read-only.
 */
export class StoreFault extends HistoryError {
  constructor(
    readonly kind: 'full' | 'locked' | 'read-only',
    readonly file: string,
    message: string,
  ) {
    super(kind === 'full' ? 'store-full' : kind === 'locked' ? 'store-locked' : 'read-only', message);
    this.name = 'StoreFault';
  }
}
