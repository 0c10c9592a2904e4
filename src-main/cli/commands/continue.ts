import { parseArgs } from 'node:util';
import { AppError, toAppError, type RunHandle } from '../../app';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';
import {
  OTLP_ENDPOINT_OPTION,
  OTLP_ENDPOINT_USAGE,
  checkOtlpEndpoint,
  finishLiveExport,
  useOtlpEndpoint,
} from '../otlp-endpoint-flag';
import { parseAgentSettings } from './agent-settings';
import { watchRun } from './run';
import type { StreamingIO } from './run-view';

const USAGE =
  'fleetscope continue SESSION [--task TEXT] [--set AGENT.FIELD=VALUE ...] [--json] [--base-url URL] ' +
  `[--model M] [--api-key-env VAR] [--data-dir DIR] ${OTLP_ENDPOINT_USAGE}`;

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

/** `--base-url`, `--model`, `--api-key-env`: the same provider overrides as `run`. */
export function providerOverrides(values: {
  'base-url'?: string | undefined;
  model?: string | undefined;
  'api-key-env'?: string | undefined;
}): { baseUrl?: string; model?: string; apiKeyEnv?: string } {
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !URL.canParse(baseUrl))
    throw new UsageError(`--base-url must be a URL, got "${baseUrl}".`);
  const apiKeyEnv = values['api-key-env'];
  if (apiKeyEnv !== undefined && !/^[A-Z_][A-Z0-9_]*$/.test(apiKeyEnv))
    throw new UsageError(
      `--api-key-env must name an environment variable (like OPENAI_API_KEY), got "${apiKeyEnv}".`,
    );
  return {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
  };
}

export const PROVIDER_FLAGS = {
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
} as const;

export const continueCommand: CliCommand = {
  name: 'continue',
  summary: 'Continue a stored session where it stopped (or with a follow-up --task); same output as run',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        task: { type: 'string' },
        set: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        ...PROVIDER_FLAGS,
        ...OTLP_ENDPOINT_OPTION,
      },
    });
    if (positionals.length !== 1)
      throw new UsageError('Give exactly one session id (or a unique prefix of one).');
    const wanted = positionals[0] as string;
    const otlpEndpoint = checkOtlpEndpoint(values['otlp-endpoint']);
    const agents = parseAgentSettings(values.set ?? []);
    const overrides = providerOverrides(values);
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.err(`No session with id "${wanted}" (no store in ${dataDir}).`);
      return EXIT.failure;
    }
    return withApp(dataDir, io, async (app) => {
      let handle: RunHandle;
      useOtlpEndpoint(app, otlpEndpoint, io);
      try {
        const sessionId = app.store.resolveSessionId(wanted);
        handle = app.runs.resume({ sessionId, task: values.task ?? '', agents, overrides });
      } catch (error) {
        const refused = toAppError(error);
        if (refused instanceof AppError) return refusalExit(refused, io);
        throw error;
      }
      const code = await watchResumed(handle, values.json, io);
      await finishLiveExport(app, io);
      return code;
    });
  },
};

/** Shows a resumed run like `run` does (human questions, --json events, exit codes). */
export function watchResumed(handle: RunHandle, json: boolean, io: StreamingIO): Promise<number> {
  for (const warning of handle.warnings) io.err(`warning: ${warning}`);
  return watchRun(handle, json, io, {});
}
