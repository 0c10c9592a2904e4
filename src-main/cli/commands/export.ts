import { parseArgs } from 'node:util';
import { AppError, EXPORT_FORMATS, TransferError, type ExportFormat } from '../../app';
import { EXIT, UsageError, type CliCommand } from '../command';
import { dataDirFrom, withApp } from '../open-app';
import { progressLine } from '../progress-line';

function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'Export a session as Markdown, JSON, a self-contained HTML replay or OTLP JSON',
  usage:
    `fleetscope export SESSION --format ${EXPORT_FORMATS.join('|')} [-o FILE] [--data-dir DIR]\n\n` +
    'On a terminal, a large session shows its progress on stderr.',
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
    return withApp(dataDirFrom(values['data-dir'], io), io, async (app) => {
      const progress = progressLine(io, `Exporting ${sessionArg}`, 'events');
      const onProgress = (done: number, total: number) => progress.update(done, total);
      try {
        if (values.output === undefined) {
          await app.exportTo(sessionArg, format, io.rawOut ?? process.stdout, onProgress);
          progress.end();
          return EXIT.ok;
        }
        const result = await app.exportTo(sessionArg, format, values.output, onProgress);
        progress.end();
        io.err(`Exported ${result.events} events (${result.bytes} bytes) to ${values.output}`);
        return EXIT.ok;
      } catch (error) {
        progress.end();
        if (!(error instanceof TransferError || error instanceof AppError)) throw error;
        io.err(`fleetscope export: ${error.message}`);
        return EXIT.failure;
      }
    });
  },
};
