import type { z } from 'zod';
import type { SqliteDatabase } from './database';
import { inWriteTurn } from './write-turns';

/**
 * One setting kept under its own key in the settings table, for a service whose settings are
 * not part of the user's general Settings (the trace receiver's). A missing or invalid row reads
 * as `fallback`.
 */
export class NamedSetting<T> {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly key: string,
    private readonly schema: z.ZodType<T>,
    private readonly fallback: T,
  ) {}

  get(): T {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(this.key) as
      { value: string } | undefined;
    if (!row) return this.fallback;
    try {
      const parsed = this.schema.safeParse(JSON.parse(row.value));
      return parsed.success ? parsed.data : this.fallback;
    } catch {
      return this.fallback;
    }
  }

  set(value: T): T {
    const checked = this.schema.parse(value);
    const upsert = this.db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    inWriteTurn(this.db, () => upsert.run(this.key, JSON.stringify(checked)));
    return checked;
  }
}
