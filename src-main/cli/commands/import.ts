import { parseArgs } from 'node:util';
import { TransferError } from '../../app';
import { EXIT, UsageError, type CliCommand } from '../command';
import { dataDirFrom, withApp } from '../open-app';

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Import a session: a Fleetscope JSON export, AutoGen AgentChat output or OpenAI messages',
  usage: 'fleetscope import FILE [--data-dir DIR]',
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { 'data-dir': { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('Give exactly one file to import.');
    return withApp(
      dataDirFrom(values['data-dir'], io),
      io,
      async (app) => {
        try {
          const result = await app.importFile(file);
          // One line per session created (several for a trace file of several conversations).
          for (const session of result.sessions) {
            io.out(`${session.sessionId}\t${result.format}\t${session.messageCount} messages`);
          }
          return EXIT.ok;
        } catch (error) {
          if (!(error instanceof TransferError)) throw error;
          io.err(`fleetscope import: ${error.message}`);
          return EXIT.failure;
        }
      },
      true,
    );
  },
};
