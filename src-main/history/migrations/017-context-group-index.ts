import type { Migration } from './runner';

/**
 * The context inspector's covering index ordered by sender, receiver and kind before seq:
 * `message_rows_view_groups` holds the same columns as `message_rows_context` (016), which it
 * replaces, but an agent's counted sums per sender, receiver and kind are then one index range
 * per group, summed in index order, where the seq-ordered index made SQLite sort every message
 * of the view into its groups first (a third of the inspector's first call on a
 * 100,000-message session). Building it reads the index's columns of every message once, as 016
 * did; nothing else is filled. Safe to run again (a store whose `user_version` was set back).
 */
export const contextGroupIndex: Migration = {
  version: 17,
  name: 'context group index',
  up(db) {
    db.exec(`
      DROP INDEX IF EXISTS message_rows_context;
      CREATE INDEX IF NOT EXISTS message_rows_view_groups
        ON message_rows (sid, sender, receiver, kind, seq, state, completion_tokens);
    `);
  },
};
