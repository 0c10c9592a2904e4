import { parseArgs } from 'node:util';
import { forkInputSchema, type ForkInput, type ForkResult } from '@shared/contract';
import { AppError, toAppError } from '../../app';
import { EXIT, UsageError, type CliCommand } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';
import {
  OTLP_ENDPOINT_OPTION,
  OTLP_ENDPOINT_USAGE,
  checkOtlpEndpoint,
  finishLiveExport,
  useOtlpEndpoint,
} from '../otlp-endpoint-flag';
import { parseAgentSettings } from './agent-settings';
import { PROVIDER_FLAGS, providerOverrides, refusalExit, watchResumed } from './continue';

const USAGE =
  'fleetscope fork SESSION --at N [--edit TEXT] [--set AGENT.FIELD=VALUE ...] [--max-messages N] ' +
  '[--termination JSON] [--title TEXT] [--no-run] [--json] [--base-url URL] [--model M] [--api-key-env VAR] ' +
  `[--data-dir DIR] ${OTLP_ENDPOINT_USAGE}`;

/** A whole number from 1, or a usage error naming the flag. */
function positive(flag: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${flag} must be a whole number above 0, got "${raw}".`);
  return value;
}

function terminationFrom(values: { 'max-messages'?: string | undefined; termination?: string | undefined }) {
  if (values['max-messages'] !== undefined && values.termination !== undefined)
    throw new UsageError('Give --max-messages or --termination, not both.');
  if (values['max-messages'] !== undefined)
    return { type: 'max-messages' as const, max: positive('--max-messages', values['max-messages']) };
  if (values.termination === undefined) return undefined;
  try {
    return JSON.parse(values.termination) as unknown;
  } catch {
    throw new UsageError(`--termination must be JSON, like '{"type":"max-messages","max":12}'.`);
  }
}

export const forkCommand: CliCommand = {
  name: 'fork',
  summary: 'Fork a session at message N (as `show` numbers them), optionally edited, and run the fork on',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        at: { type: 'string' },
        edit: { type: 'string' },
        set: { type: 'string', multiple: true },
        'max-messages': { type: 'string' },
        termination: { type: 'string' },
        title: { type: 'string' },
        'no-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        ...PROVIDER_FLAGS,
        ...OTLP_ENDPOINT_OPTION,
      },
    });
    if (positionals.length !== 1)
      throw new UsageError('Give exactly one session id (or a unique prefix of one).');
    if (values.at === undefined)
      throw new UsageError('--at N is required: the message to fork at (1 = the task).');
    const wanted = positionals[0] as string;
    const request: ForkInput = {
      sessionId: wanted,
      atMessage: positive('--at', values.at),
      agents: parseAgentSettings(values.set ?? []),
      run: !values['no-run'],
      ...(values.edit !== undefined ? { text: values.edit } : {}),
      ...(values.title !== undefined ? { title: values.title } : {}),
    };
    const overrides = providerOverrides(values);
    const otlpEndpoint = checkOtlpEndpoint(values['otlp-endpoint']);
    const termination = terminationFrom(values);
    const parsed = forkInputSchema.safeParse(
      termination === undefined ? request : { ...request, termination },
    );
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw new UsageError(`The fork is not valid: ${where}${issue?.message ?? 'unexpected value'}.`);
    }
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.err(`No session with id "${wanted}" (no store in ${dataDir}).`);
      return EXIT.failure;
    }
    return withApp(dataDir, io, async (app) => {
      let result: ForkResult;
      useOtlpEndpoint(app, otlpEndpoint, io);
      try {
        result = app.branches.fork(parsed.data, { overrides });
      } catch (error) {
        const refused = toAppError(error);
        if (refused instanceof AppError) return refusalExit(refused, io);
        throw error;
      }
      const handle = app.runs.handle(result.sessionId);
      // With --json and a run, stdout is the run's event stream, as for `run` (every event names
      // the fork); the fork's own line goes to stderr.
      if (values.json && !result.running) io.out(JSON.stringify({ fork: result }));
      else if (values.json) io.err(JSON.stringify({ fork: result }));
      else {
        io.out(result.sessionId);
        io.err(`Forked ${result.forkOf.sessionId} at message ${result.forkOf.atMessage}: ${result.label}.`);
      }
      if (!result.running || handle === undefined) return EXIT.ok;
      const code = await watchResumed(handle, values.json, io);
      await finishLiveExport(app, io);
      return code;
    });
  },
};
