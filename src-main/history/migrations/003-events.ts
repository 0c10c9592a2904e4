import type { Migration } from './runner';

/**
 * The append-only event log (the source of truth) and checkpoints of the folded view.
 * `t` is milliseconds since session start; `payload` is the event's payload as JSON.
 * `checkpoints.state` is a compacted `ViewState` after the event at `seq`.
 */
export const eventsTables: Migration = {
  version: 3,
  name: 'events and checkpoints',
  up(db) {
    db.exec(`
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        t          REAL NOT NULL,
        kind       TEXT NOT NULL,
        agent      TEXT,
        payload    TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        state      TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
