import { parseArgs } from 'node:util';
import { forkInputSchema, type ForkInput } from '@shared/contract';
import { UsageError, type CliCommand } from '../command';
import { checkOtlpEndpoint } from '../otlp-endpoint-flag';
import { parseAgentSettings } from './agent-settings';
import { STORED_RUN_OPTIONS, STORED_RUN_USAGE, oneSession, runOnStoredSession } from './stored-session-run';
import { providerOverrides } from './provider-flags';

const USAGE =
  'fleetscope fork SESSION --at N [--edit TEXT] [--max-messages N] [--termination JSON] [--title TEXT] ' +
  `[--no-run] ${STORED_RUN_USAGE}`;

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
        'max-messages': { type: 'string' },
        termination: { type: 'string' },
        title: { type: 'string' },
        'no-run': { type: 'boolean', default: false },
        ...STORED_RUN_OPTIONS,
      },
    });
    const wanted = oneSession(positionals);
    if (values.at === undefined)
      throw new UsageError('--at N is required: the message to fork at (1 = the task).');
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
    const options = { wanted, dataDir: values['data-dir'], json: values.json, otlpEndpoint };
    return runOnStoredSession(options, io, (app) => {
      const result = app.branches.fork(parsed.data, { overrides });
      // With --json and a run, stdout is the run's event stream, as for `run` (every event names
      // the fork); the fork's own line goes to stderr.
      if (values.json && !result.running) io.out(JSON.stringify({ fork: result }));
      else if (values.json) io.err(JSON.stringify({ fork: result }));
      else {
        io.out(result.sessionId);
        io.err(`Forked ${result.forkOf.sessionId} at message ${result.forkOf.atMessage}: ${result.label}.`);
      }
      return result.running ? app.runs.handle(result.sessionId) : undefined;
    });
  },
};
