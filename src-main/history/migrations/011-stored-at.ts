import type { Migration } from './runner';

/** Milliseconds since the epoch, in SQL, for the trigger below. */
const NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;

/**
 * When a session entered this store (`stored_at`, epoch ms), which retention counts from, and
 * whether it is one of the samples seeded on first launch (`sample`), which retention never deletes.
 * `created_at` is when the conversation began: for an import, that can be years before it arrived.
 *
 * Every insert gets `stored_at` from a trigger, so no writer (runs, imports, forks, traces) can
 * forget it: a live run or fork entered the store when it was created (`created_at`, on the
 * store's clock); anything else (imports, traces) at the insert's wall-clock time. Existing rows
 * follow the same rule, with the time of this upgrade for the others, since when they arrived is
 * not known and counting from an older time could delete them at once. Samples are marked after seeding (see
 * app/retention.ts).
 */
export const storedAtColumn: Migration = {
  version: 11,
  name: 'stored-at',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN stored_at INTEGER;
      ALTER TABLE sessions ADD COLUMN sample INTEGER NOT NULL DEFAULT 0;
      UPDATE sessions SET stored_at = CASE WHEN source = 'live' THEN created_at ELSE ${NOW_MS} END;
      CREATE INDEX sessions_by_stored ON sessions (stored_at);
      CREATE TRIGGER sessions_stored_at AFTER INSERT ON sessions
        FOR EACH ROW WHEN NEW.stored_at IS NULL
        BEGIN
          UPDATE sessions
             SET stored_at = CASE WHEN NEW.source = 'live' THEN NEW.created_at ELSE ${NOW_MS} END
           WHERE id = NEW.id;
        END;
    `);
  },
};
