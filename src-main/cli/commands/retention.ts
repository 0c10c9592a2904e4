import { parseArgs } from 'node:util';
import type { RetentionPreview } from '@shared/contract';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';
import { cell, formatWhen } from './sessions';

function printCandidates(preview: RetentionPreview, io: CliIO): void {
  for (const session of preview.sessions)
    io.out(`  ${session.id}  ${cell(session.title, 60)}  (stored ${formatWhen(session.storedAt)})`);
  if (preview.count > preview.sessions.length)
    io.out(`  … and ${preview.count - preview.sessions.length} more`);
}

/**
 * Retention from the terminal. Without --apply it only says what would be deleted (nothing is);
 * with --apply it says the same, then deletes, and the number of days becomes the confirmed
 * setting the app and `serve` go on applying hourly. No other command deletes by retention.
 */
export const retentionCommand: CliCommand = {
  name: 'retention',
  summary:
    'Show which sessions retention would delete (entered this store more than N days ago; samples kept); --apply deletes them',
  usage: 'fleetscope retention [--days N] [--apply] [--data-dir DIR]',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        days: { type: 'string' },
        apply: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    let days: number | undefined;
    if (values.days !== undefined) {
      days = Number(values.days);
      if (!Number.isInteger(days) || days <= 0)
        throw new UsageError(`--days must be a whole number above zero, got "${values.days}".`);
    }
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.out(`No store in ${dataDir}: nothing to delete.`);
      return EXIT.ok;
    }
    return withApp(dataDir, io, async (app) => {
      const preview = await app.call('settings.retentionPreview', days === undefined ? {} : { days });
      if (preview.days === null) {
        io.out('Retention is off: every session is kept. Give --days N to see what N days would delete.');
        return EXIT.ok;
      }
      const span = `${preview.days} day${preview.days === 1 ? '' : 's'}`;
      if (!values.apply) {
        io.out(
          preview.count === 0
            ? `Keeping ${span}: no session would be deleted now.`
            : `Keeping ${span}: ${preview.count} session${preview.count === 1 ? '' : 's'} would be deleted now:`,
        );
        printCandidates(preview, io);
        io.out(
          `Nothing was deleted. \`fleetscope retention${days === undefined ? '' : ` --days ${days}`} --apply\` deletes ${preview.count === 0 ? 'what is older later' : 'them'} and keeps ${span} from then on.`,
        );
        return EXIT.ok;
      }
      // Saving the days confirms them (the app and `serve` then apply them hourly).
      await app.call('settings.set', { retentionDays: preview.days });
      const deleted = app.retention.apply();
      io.out(`Keeping ${span}: deleted ${deleted.length} session${deleted.length === 1 ? '' : 's'}.`);
      printCandidates(preview, io);
      return EXIT.ok;
    });
  },
};
