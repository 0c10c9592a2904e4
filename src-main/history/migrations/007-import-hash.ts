import type { Migration } from './runner';

/**
 * The SHA-256 of the file an imported session came from (`source_hash`, hex), so importing the
 * same file again is noticed. Null for runs and for sessions imported before this column existed.
 */
export const importHashColumn: Migration = {
  version: 7,
  name: 'import-hash',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN source_hash TEXT;
      CREATE INDEX sessions_by_source_hash ON sessions (source_hash) WHERE source_hash IS NOT NULL;
    `);
  },
};
