import type { Migration } from './runner';

/**
 * Which process drives each live session, so any process that opens the store can tell a session
 * whose driver is gone (mark it interrupted) from one another process is still running (leave it).
 * `process_start` is the kernel's start time of that pid where the OS tells it (Linux: field 22 of
 * /proc/PID/stat, in clock ticks since boot), so a reused pid is not mistaken for the owner.
 * `heartbeat_at` (epoch ms) is refreshed while the owner lives; it decides for owners on another host.
 */
export const sessionOwnersTable: Migration = {
  version: 5,
  name: 'session owners',
  up(db) {
    db.exec(`
      CREATE TABLE session_owners (
        session_id    TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        pid           INTEGER NOT NULL,
        process_start TEXT,
        host          TEXT NOT NULL,
        claimed_at    INTEGER NOT NULL,
        heartbeat_at  INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
