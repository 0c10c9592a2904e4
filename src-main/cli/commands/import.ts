import { parseArgs } from 'node:util';
import { defaultDataDir } from '../../app/data-dir';
import { openHistory } from '../../history';
import { TransferError, importFile } from '../../history/import';
import { EXIT, UsageError, type CliCommand } from '../command';

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
    // Writing an imported session never touches live ones, so start-up recovery is skipped.
    const history = openHistory(values['data-dir'] ?? defaultDataDir(io.env), { recover: false });
    try {
      const result = await importFile(file, history.store);
      io.out(`${result.sessionId}\t${result.format}\t${result.messageCount} messages`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof TransferError)) throw error;
      io.err(`fleetscope import: ${error.message}`);
      return EXIT.failure;
    } finally {
      history.close();
    }
  },
};
