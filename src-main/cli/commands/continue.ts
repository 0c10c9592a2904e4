import { parseArgs } from 'node:util';
import type { CliCommand } from '../command';
import { checkOtlpEndpoint } from '../otlp-endpoint-flag';
import { parseAgentSettings } from './agent-settings';
import { STORED_RUN_OPTIONS, STORED_RUN_USAGE, oneSession, runOnStoredSession } from './stored-session-run';
import { providerOverrides } from './provider-flags';

const USAGE = `fleetscope continue SESSION [--task TEXT] ${STORED_RUN_USAGE}`;

export const continueCommand: CliCommand = {
  name: 'continue',
  summary: 'Continue a stored session where it stopped (or with a follow-up --task); same output as run',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { task: { type: 'string' }, ...STORED_RUN_OPTIONS },
    });
    const wanted = oneSession(positionals);
    const otlpEndpoint = checkOtlpEndpoint(values['otlp-endpoint']);
    const agents = parseAgentSettings(values.set ?? []);
    const overrides = providerOverrides(values);
    const options = { wanted, dataDir: values['data-dir'], json: values.json, otlpEndpoint };
    return runOnStoredSession(options, io, (app) => {
      const continued = app.branches.continue({
        sessionId: app.store.resolveSessionId(wanted),
        task: values.task ?? '',
        agents,
        overrides,
      });
      if (continued.forkOf !== null)
        io.err(
          `${continued.forkOf} is read-only (imported) and stays as it is; continuing in a new fork: ${continued.sessionId}`,
        );
      return continued.handle;
    });
  },
};
