import type { Writable } from 'node:stream';

/** Where a command writes; tests pass their own. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Writes without a newline (tokens as they arrive); absent where output is line-based. */
  write?(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the user interrupts (Ctrl+C, SIGTERM); long-running commands wait on it. */
  interrupted: Promise<void>;
  /** Where raw output (exports) goes; default process.stdout. */
  rawOut?: Writable;
  /**
   * Redraws one status line in place (progress of a long import or export); `null` clears it.
   * Present only when stderr is a terminal, so piped and redirected output stays quiet.
   */
  status?(text: string | null): void;
  /** Resolves once written output has been taken by a slow reader (a pipe); absent in tests. */
  drained?(): Promise<void>;
}

/**
 * Exit codes shared by every command: 0 done (a termination condition ended a run), 1 failed or
 * cancelled (Ctrl+C, SIGTERM), 2 invalid arguments or fleet, 3 the model provider failed.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, provider: 3 } as const;

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIO): Promise<number>;
}

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}
