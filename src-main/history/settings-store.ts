import { settingsSchema, type Settings } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { writeTransaction } from './write-turns';

/** Settings as key -> JSON rows; unknown or invalid rows fall back to defaults. */
export class SettingsStore {
  constructor(private readonly db: SqliteDatabase) {}

  get(): Settings {
    const rows = this.db.prepare('SELECT key, value FROM settings').all() as Array<{
      key: string;
      value: string;
    }>;
    const raw: Record<string, unknown> = {};
    for (const row of rows) {
      try {
        raw[row.key] = JSON.parse(row.value);
      } catch {
        // A row that is not JSON is ignored; its default applies.
      }
    }
    const shape = settingsSchema.shape;
    const merged: Record<string, unknown> = {};
    for (const key of Object.keys(shape) as Array<keyof typeof shape>) {
      const field = shape[key].safeParse(raw[key]);
      merged[key] = field.success ? field.data : shape[key].parse(undefined);
    }
    return merged as Settings;
  }

  set(patch: Partial<Settings>): Settings {
    const upsert = this.db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    writeTransaction(this.db, () => {
      for (const [key, value] of Object.entries(patch)) {
        if (value !== undefined) upsert.run(key, JSON.stringify(value));
      }
    });
    return this.get();
  }
}
