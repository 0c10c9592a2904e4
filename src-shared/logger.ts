/**
 * The one logging port. The composition root injects an implementation (pino, writing to the data
 * folder's log file with keys masked); layers that must not know it (orchestrator, history) take
 * this interface. `context` is a small object of facts (ids, counts, an `err`), never secrets.
 */
export interface Logger {
  debug(message: string, context?: Record<string, unknown>): void;
  info(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
  /** A logger whose lines carry `bindings` too (e.g. `{ component: 'web-host' }`). */
  child(bindings: Record<string, unknown>): Logger;
}

/** Logs nothing (tests, and code that was given no logger). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
