import { AppError, toAppError, type FleetscopeApp, type RunHandle } from '../../app';
import { EXIT, UsageError, type CliIO } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';
import {
  OTLP_ENDPOINT_OPTION,
  OTLP_ENDPOINT_USAGE,
  finishLiveExport,
  useOtlpEndpoint,
} from '../otlp-endpoint-flag';
import { PROVIDER_FLAGS } from './provider-flags';
import { storedCount, watchRun } from './run';
import type { StreamingIO } from './run-view';

/**
 * What the commands that run on a stored session (`continue`, `fork`) share: their common flags,
 * and opening the store, starting the run and showing it the way `run` does.
 */

/** The flags every command on a stored session takes, for `parseArgs`. */
export const STORED_RUN_OPTIONS = {
  set: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  ...PROVIDER_FLAGS,
  ...OTLP_ENDPOINT_OPTION,
} as const;

/** Those flags as the usage line shows them. */
export const STORED_RUN_USAGE =
  '[--set AGENT.FIELD=VALUE ...] [--json] [--base-url URL] [--model M] [--api-key-env VAR] ' +
  `[--data-dir DIR] ${OTLP_ENDPOINT_USAGE}`;

/** The one positional argument: a session id or a unique prefix of one. */
export function oneSession(positionals: string[]): string {
  const [wanted, ...extra] = positionals;
  if (wanted === undefined || extra.length > 0)
    throw new UsageError('Give exactly one session id (or a unique prefix of one).');
  return wanted;
}

/**
 * How a refused run-related call ends a command: invalid input (unknown agent, an import without
 * providers, a key that may not go there) is exit 2, an unknown or busy session exit 1.
 */
export function refusalExit(error: AppError, io: CliIO): number {
  io.err(error.message);
  switch (error.code) {
    case 'invalid-input':
    case 'read-only':
    case 'forbidden':
      return EXIT.usage;
    default:
      return EXIT.failure;
  }
}

export interface StoredRunOptions {
  /** The session as the user named it, for the message when there is no store at all. */
  wanted: string;
  dataDir: string | undefined;
  json: boolean;
  /** Already checked with `checkOtlpEndpoint`. */
  otlpEndpoint: string | undefined;
}

/**
 * Opens the store and calls `start`, which asks the app for the run (a refusal it throws ends the
 * command with `refusalExit`) and answers the run to show, or nothing when there is none; the run
 * is then shown as `run` shows one (warnings, human questions, --json events, exit codes).
 */
export async function runOnStoredSession(
  options: StoredRunOptions,
  io: StreamingIO,
  start: (app: FleetscopeApp) => RunHandle | undefined,
): Promise<number> {
  const dataDir = dataDirFrom(options.dataDir, io);
  if (!hasStore(dataDir)) {
    io.err(`No session with id "${options.wanted}" (no store in ${dataDir}).`);
    return EXIT.failure;
  }
  return withApp(
    dataDir,
    io,
    async (app) => {
      useOtlpEndpoint(app, options.otlpEndpoint, io);
      let handle: RunHandle | undefined;
      try {
        handle = start(app);
      } catch (error) {
        const refused = toAppError(error);
        if (refused instanceof AppError) return refusalExit(refused, io);
        throw error;
      }
      if (handle === undefined) return EXIT.ok;
      for (const warning of handle.warnings) io.err(`warning: ${warning}`);
      const code = await watchRun(handle, options.json, io, { storedMessages: storedCount(app) });
      await finishLiveExport(app, io);
      return code;
    },
    true,
  );
}
