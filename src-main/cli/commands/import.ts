import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { IMPORT_FORMATS, TransferError, type ImportFormat } from '../../app';
import { EXIT, UsageError, type CliCommand } from '../command';
import { dataDirFrom, withApp } from '../open-app';
import { progressLine } from '../progress-line';

/** Every format the import reads, in words (a format added to the import must be named here). */
const FORMAT_NAMES: Record<ImportFormat, string> = {
  'fleetscope-json': 'a Fleetscope JSON export (fleetscope export --format json)',
  'autogen-taskresult': "AutoGen AgentChat's TaskResult (run() output, messages as JSON)",
  'autogen-teamstate': "AutoGen AgentChat's TeamState (save_state())",
  'openai-messages': 'OpenAI chat messages (a messages array, or a request or log holding one)',
  'otlp-json': 'OpenTelemetry traces as OTLP/JSON (a collector file exporter, one document or lines)',
  'otel-span-dump': 'OpenTelemetry spans dumped as JSON (console or in-memory exporters)',
  'any-agent-trace': "any-agent's AgentTrace JSON",
  'chatdev-log': "ChatDev's plain-text run log",
};

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Import sessions from a transcript or trace file (every format is listed under Usage)',
  usage:
    'fleetscope import FILE [--data-dir DIR]\n\nReads, recognising the format by the content:\n' +
    IMPORT_FORMATS.map((format) => `  ${format.padEnd(19)} ${FORMAT_NAMES[format]}`).join('\n') +
    '\n\nOn a terminal, a large file shows its progress on stderr.',
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
        const progress = progressLine(io, `Importing ${basename(file)}`, 'bytes');
        try {
          const result = await app.importFile(file, (done, total) => progress.update(done, total));
          progress.end();
          // One line per session created (several for a trace file of several conversations).
          for (const session of result.sessions) {
            io.out(`${session.sessionId}\t${result.format}\t${session.messageCount} messages`);
          }
          return EXIT.ok;
        } catch (error) {
          progress.end();
          if (!(error instanceof TransferError)) throw error;
          io.err(`fleetscope import: ${error.message}`);
          return EXIT.failure;
        }
      },
      true,
    );
  },
};
