import { parseArgs } from 'node:util';
import { defaultDataDir } from '../../app/data-dir';
import { openHistory } from '../../history';
import { EXPORT_FORMATS, exportSession, exportToStream, type ExportFormat } from '../../history/export';
import { TransferError } from '../../history/import';
import { EXIT, UsageError, type CliCommand } from '../command';

function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'Export a session as Markdown, JSON, a self-contained HTML replay or OTLP JSON',
  usage: `fleetscope export SESSION --format ${EXPORT_FORMATS.join('|')} [-o FILE] [--data-dir DIR]`,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        format: { type: 'string', short: 'f' },
        output: { type: 'string', short: 'o' },
        'data-dir': { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
    const [sessionArg, ...extra] = positionals;
    if (sessionArg === undefined || extra.length > 0) throw new UsageError('Give exactly one session id.');
    const format = values.format ?? 'md';
    if (!isExportFormat(format))
      throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got "${format}".`);
    // Read-only use: never mark the app's live sessions as interrupted.
    const history = openHistory(values['data-dir'] ?? defaultDataDir(io.env), { recover: false });
    try {
      const sessionId = history.store.resolveSessionId(sessionArg);
      if (values.output === undefined) {
        await exportToStream(history.store, sessionId, format, process.stdout);
        return EXIT.ok;
      }
      const result = await exportSession(history.store, sessionId, format, values.output);
      io.err(`Exported ${result.events} events (${result.bytes} bytes) to ${values.output}`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof TransferError)) throw error;
      io.err(`fleetscope export: ${error.message}`);
      return EXIT.failure;
    } finally {
      history.close();
    }
  },
};
