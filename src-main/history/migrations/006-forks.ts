import type { Migration } from './runner';

/**
 * Forks by reference. A fork's row names its parent (`parent_session_id`) and the parent's last
 * event it shares (`fork_seq`); its own events continue the numbering from `fork_seq + 1`, and
 * reading it goes through the parent's events and messages up to `fork_seq` (recursively for
 * forks of forks). `fork_message` is the message number it was forked at (as `show` counts,
 * 1 = the task), `fork_changes` a JSON array of what it changed, `root_session_id` the top of its
 * family (null for a session that is not a fork). Only the store's fork writer sets them.
 */
export const forksColumns: Migration = {
  version: 6,
  name: 'forks',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN fork_message INTEGER;
      ALTER TABLE sessions ADD COLUMN fork_changes TEXT;
      ALTER TABLE sessions ADD COLUMN root_session_id TEXT;
      CREATE INDEX sessions_by_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
      CREATE INDEX sessions_by_root ON sessions (root_session_id) WHERE root_session_id IS NOT NULL;
    `);
  },
};
