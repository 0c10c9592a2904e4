import type { ErrorCode } from '@shared/contract';

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
