import type { Migration } from './runner';

/**
 * For comparing sessions without reading their event logs: `messages.ended_t` is when a message
 * stopped arriving (ms since session start: its completion, or the stop that cut it off; null for
 * messages stored before this column, whose end is then read from their completion event), and a
 * small partial index finds a session's error events.
 */
export const messageEndsColumn: Migration = {
  version: 8,
  name: 'message ends',
  up(db) {
    db.exec(`
      ALTER TABLE messages ADD COLUMN ended_t REAL;
      CREATE INDEX events_errors ON events (session_id, seq) WHERE kind = 'error';
    `);
  },
};
