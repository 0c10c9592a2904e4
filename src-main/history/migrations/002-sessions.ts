import type { Migration } from './runner';

/**
 * Sessions and saved fleets. Times are epoch milliseconds; `tags` is a JSON array of strings;
 * `fleet_json` is the exact fleet snapshot a session ran with (null for imports that had none).
 */
export const sessionsTables: Migration = {
  version: 2,
  name: 'sessions and fleets',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id                TEXT PRIMARY KEY,
        title             TEXT NOT NULL,
        task              TEXT NOT NULL DEFAULT '',
        fleet_name        TEXT NOT NULL DEFAULT '',
        fleet_json        TEXT,
        status            TEXT NOT NULL,
        stop_reason       TEXT,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        ended_at          INTEGER,
        message_count     INTEGER NOT NULL DEFAULT 0,
        tokens            INTEGER NOT NULL DEFAULT 0,
        parent_session_id TEXT,
        fork_seq          INTEGER,
        tags              TEXT NOT NULL DEFAULT '[]',
        source            TEXT NOT NULL DEFAULT 'live',
        read_only         INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX sessions_by_created ON sessions (created_at DESC);
      CREATE INDEX sessions_by_status ON sessions (status, created_at DESC);
      CREATE INDEX sessions_by_fleet ON sessions (fleet_name, created_at DESC);

      CREATE TABLE fleets (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        json       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX fleets_by_name ON fleets (name);
    `);
  },
};
