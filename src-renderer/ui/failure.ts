import type { Ref } from 'vue';
import type { CallError } from '@shared/contract';

/**
 * Shows a failure the way stores do: on the store's `error` line and, when the store was given a
 * toast, as a toast too. `context` goes before the call's message ("Could not rename: …").
 * Returns `fallback`, so a command can end with `return fail(result.error, false)`.
 */
export interface FailureReporter {
  (failure: CallError | string): void;
  <T>(failure: CallError | string, fallback: T, context?: string): T;
}

export function createFailureReporter(
  error: Ref<string | null>,
  toast?: (message: string) => unknown,
): FailureReporter {
  function fail(failure: CallError | string): void;
  function fail<T>(failure: CallError | string, fallback: T, context?: string): T;
  function fail<T>(failure: CallError | string, fallback?: T, context?: string): T | undefined {
    const detail = typeof failure === 'string' ? failure : failure.message;
    const message = context ? `${context}: ${detail}` : detail;
    error.value = message;
    toast?.(message);
    return fallback;
  }
  return fail;
}
