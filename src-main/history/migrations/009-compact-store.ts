import type { Migration } from './runner';

/**
 * A compact store: every session gets a small integer key (`sessions.sid`, set by a trigger on
 * insert, never reused while the session exists), and the two big tables are rebuilt on it:
 *
 * - `event_log (sid, seq, t, kind, agent, msg, payload)`: `msg` is the `message_rows.pk` the event
 *   is about. Events written from this version on do not repeat what that row holds: a start,
 *   a delta (stored as `[offset, length]` into the row's content) and a completion keep only what
 *   the row lacks (see history/event-codec.ts, which every reader decodes through). Rows copied
 *   from the old table keep their whole payload and `msg` null, and decode as they are.
 * - `message_rows`: `messages` keyed by `sid`, plus `first_seq`, the first event that reads its
 *   text from the row (null when none does), so the writer can write those events out whole
 *   before the row's text changes; it finds them through `event_log_by_msg` (a hostile import
 *   that completes many messages twice costs an index lookup each, not a scan of the log).
 *   `pk` values are kept (the full-text index refers to them).
 *
 * The old indexes by thread and by receiver are not rebuilt: no query's plan used them (pages
 * filtered by thread or agent walk the seq index in order, as they did before).
 *
 * `events` and `messages` become views with the session's text id (`session_id`), so queries
 * that only read them are unchanged; writes go to the tables.
 */
export const compactStore: Migration = {
  version: 9,
  name: 'compact store',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN sid INTEGER;
      UPDATE sessions SET sid = rowid;
      CREATE UNIQUE INDEX sessions_by_sid ON sessions (sid);
      CREATE TRIGGER sessions_sid AFTER INSERT ON sessions WHEN NEW.sid IS NULL BEGIN
        UPDATE sessions SET sid = (SELECT coalesce(max(sid), 0) + 1 FROM sessions) WHERE rowid = NEW.rowid;
      END;

      CREATE TABLE event_log (
        sid     INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        seq     INTEGER NOT NULL,
        t       REAL NOT NULL,
        kind    TEXT NOT NULL,
        agent   TEXT,
        msg     INTEGER,
        payload TEXT NOT NULL,
        PRIMARY KEY (sid, seq)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO event_log (sid, seq, t, kind, agent, msg, payload)
        SELECT s.sid, e.seq, e.t, e.kind, e.agent, NULL, e.payload
        FROM events e JOIN sessions s ON s.id = e.session_id ORDER BY s.sid, e.seq;
      DROP TABLE events;
      CREATE INDEX event_log_errors ON event_log (sid, seq) WHERE kind = 'error';
      CREATE INDEX event_log_by_msg ON event_log (sid, msg) WHERE msg IS NOT NULL;

      CREATE TABLE message_rows (
        pk                INTEGER PRIMARY KEY,
        sid               INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
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
        ended_t           REAL,
        first_seq         INTEGER,
        UNIQUE (sid, id)
      ) STRICT;
      INSERT INTO message_rows (pk, sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta,
          tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t, first_seq)
        SELECT m.pk, s.sid, m.id, m.seq, m.t, m.thread_id, m.parent_id, m.sender, m.receiver, m.kind, m.content,
          m.meta, m.tool_calls, m.tool_results, m.prompt_tokens, m.completion_tokens, m.state, m.dropped_reason,
          m.ended_t, NULL
        FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY m.pk;
      DROP TABLE messages;
      CREATE INDEX message_rows_by_seq ON message_rows (sid, seq);
      CREATE INDEX message_rows_by_t ON message_rows (sid, t, seq);
      CREATE INDEX message_rows_by_sender ON message_rows (sid, sender, seq);
      CREATE INDEX message_rows_streaming ON message_rows (sid) WHERE state = 'streaming';

      CREATE VIEW events AS
        SELECT s.id AS session_id, e.seq, e.t, e.kind, e.agent, e.msg, e.payload
        FROM event_log e JOIN sessions s ON s.sid = e.sid;
      CREATE VIEW messages AS
        SELECT m.pk, s.id AS session_id, m.id, m.seq, m.t, m.thread_id, m.parent_id, m.sender, m.receiver, m.kind,
          m.content, m.meta, m.tool_calls, m.tool_results, m.prompt_tokens, m.completion_tokens, m.state,
          m.dropped_reason, m.ended_t
        FROM message_rows m JOIN sessions s ON s.sid = m.sid;
    `);
  },
};
