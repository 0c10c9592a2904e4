import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryStore } from '../../history';
import type { SqliteDatabase } from '../../history/database';
import { importFile } from '../../interop/import';
import { silentLogger, type Logger } from '@shared/logger';

const SEEDED_KEY = 'internal.samplesSeeded';

/**
 * On the first launch with an empty store, imports the sample sessions shipped in
 * resources/samples so there is something to open, replay and export. Runs once per store.
 */
export async function seedSamples(
  db: SqliteDatabase,
  store: HistoryStore,
  samplesDir: string,
  logger: Logger = silentLogger,
): Promise<number> {
  const seeded = db.prepare('SELECT value FROM settings WHERE key = ?').get(SEEDED_KEY);
  if (seeded || !existsSync(samplesDir)) return 0;
  const markSeeded = () =>
    db.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)').run(SEEDED_KEY, 'true');
  if (store.listSessions({ limit: 1 }).total > 0) {
    markSeeded();
    return 0;
  }
  let imported = 0;
  for (const file of readdirSync(samplesDir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    try {
      await importFile(join(samplesDir, file), store);
      imported++;
    } catch (error) {
      // A sample that no longer imports is skipped; the sample tests catch it before release.
      logger.warn('A sample session could not be imported; skipped', { file, err: error });
    }
  }
  markSeeded();
  return imported;
}
