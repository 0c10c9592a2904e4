import type { Migration } from './runner';

/**
 * Messages materialized from events, for paging and search. `seq` is the seq of the event that
 * last changed the row's state (start while streaming, completion once complete); `pk` is the
 * rowid the full-text index refers to. JSON columns: meta (object), tool_calls / tool_results
 * (arrays or null).
 *
 * The FTS5 table is contentless with deletes allowed (rowid = messages.pk). The store writes it
 * explicitly (see history/fts-index.ts) rather than through triggers, which made FTS5 inserts
 * about seven times slower. Only messages that are no longer streaming are indexed, so a
 * streaming row is not re-tokenized on every batch.
 */
export const messagesTables: Migration = {
  version: 4,
  name: 'messages and full-text index',
  up(db) {
    db.exec(`
      CREATE TABLE messages (
        pk                INTEGER PRIMARY KEY,
        session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id                TEXT NOT NULL,
        seq               INTEGER NOT NULL,
        t                 REAL NOT NULL,
        thread_id         TEXT NOT NULL,
        parent_id         TEXT,
        sender            TEXT NOT NULL,
        receiver          TEXT NOT NULL,
        kind              TEXT NOT NULL,
        content           TEXT NOT NULL,
        meta              TEXT NOT NULL DEFAULT '{}',
        tool_calls        TEXT,
        tool_results      TEXT,
        prompt_tokens     INTEGER,
        completion_tokens INTEGER,
        state             TEXT NOT NULL,
        dropped_reason    TEXT,
        UNIQUE (session_id, id)
      ) STRICT;
      CREATE INDEX messages_by_seq ON messages (session_id, seq);
      CREATE INDEX messages_by_t ON messages (session_id, t, seq);
      CREATE INDEX messages_by_thread ON messages (session_id, thread_id, seq);
      CREATE INDEX messages_by_sender ON messages (session_id, sender, seq);
      CREATE INDEX messages_by_receiver ON messages (session_id, receiver, seq);
      CREATE INDEX messages_streaming ON messages (state) WHERE state = 'streaming';

      CREATE VIRTUAL TABLE messages_fts USING fts5 (
        content, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
      );
    `);
  },
};
