import type { Migration } from './runner';

/**
 * Indexes the context inspector sums an agent's view from without reading message rows:
 * `message_rows_context` holds every column its per-sender sums filter and add up (so the sums
 * of a 100,000-message session are an index walk), and `message_rows_tool_turns` lists only the
 * messages that carry tool calls or results, the ones it reads in full. Safe to run again (a store
 * whose `user_version` was set back).
 */
export const contextIndexes: Migration = {
  version: 16,
  name: 'context indexes',
  up(db) {
    db.exec(`
      CREATE INDEX IF NOT EXISTS message_rows_context
        ON message_rows (sid, seq, sender, receiver, kind, state, completion_tokens);
      CREATE INDEX IF NOT EXISTS message_rows_tool_turns ON message_rows (sid, sender, seq)
        WHERE tool_calls IS NOT NULL OR tool_results IS NOT NULL;
    `);
  },
};
