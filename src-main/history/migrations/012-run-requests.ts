import type { Migration } from './runner';

/**
 * Requests to a run that another process drives (pause, resume, step, stop, a person's answer),
 * carried through the shared store: the requesting process inserts a row, the process that owns
 * the session (`session_owners`) polls for the open rows of its sessions, applies each through its
 * run and sets `handled_at` (epoch ms) and `outcome` (JSON: `{"ok":true,"status":...}` or
 * `{"ok":false,"code":...,"message":...}`). `payload` is JSON for an answer
 * (`{"requestId":...,"text":...}`), null otherwise. The requester deletes its row once it has read
 * the outcome, or withdraws it unhandled when the owner does not answer in time.
 */
export const runRequestsTable: Migration = {
  version: 12,
  name: 'run requests',
  up(db) {
    db.exec(`
      CREATE TABLE run_requests (
        id          INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        kind        TEXT NOT NULL CHECK (kind IN ('pause', 'resume', 'step', 'stop', 'answer')),
        payload     TEXT,
        created_at  INTEGER NOT NULL,
        handled_at  INTEGER,
        outcome     TEXT
      ) STRICT;
      CREATE INDEX run_requests_open ON run_requests (session_id) WHERE handled_at IS NULL;
    `);
  },
};
