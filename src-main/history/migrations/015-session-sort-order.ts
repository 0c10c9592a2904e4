import type { Migration } from './runner';

/**
 * The session list's sort indexes end with `id`, the last term of every ORDER BY (ties broken by
 * id, so pages never overlap). Without it SQLite walked the index and then sorted each run of
 * equal keys in a temporary b-tree, building every row of the page and of every row before it
 * (the per-row fork counts included) before it could skip the offset; with it the walk is in
 * order, and skipped rows cost an index step each.
 */
export const sessionSortOrder: Migration = {
  version: 15,
  name: 'session sort order',
  up(db) {
    db.exec(`
      DROP INDEX sessions_by_created;
      DROP INDEX sessions_by_cost;
      DROP INDEX sessions_by_tokens;
      DROP INDEX sessions_by_duration;
      CREATE INDEX sessions_by_created ON sessions (created_at DESC, id);
      CREATE INDEX sessions_by_cost ON sessions (cost DESC, created_at DESC, id);
      CREATE INDEX sessions_by_tokens ON sessions (tokens DESC, created_at DESC, id);
      CREATE INDEX sessions_by_duration ON sessions (duration_ms DESC, created_at DESC, id);
    `);
  },
};
