// Holds the write lock of a store until killed: records itself as the owner of a live session
// (as a running `fleetscope run` does), then BEGIN EXCLUSIVE and waits. Prints "locked" once held.
// Usage: node lock-holder.mjs STORE_FILE SESSION_ID
import { hostname } from 'node:os';
import Database from 'better-sqlite3';

const [file, sessionId] = process.argv.slice(2);
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.prepare(
  `INSERT INTO session_owners (session_id, pid, process_start, host, claimed_at, heartbeat_at)
   VALUES (?, ?, NULL, ?, ?, ?)`,
).run(sessionId, process.pid, hostname(), Date.now(), Date.now());
db.exec('BEGIN EXCLUSIVE');
db.prepare("UPDATE sessions SET title = title WHERE id = 'none'").run();
process.stdout.write('locked\n');
setInterval(() => undefined, 1_000);
