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
