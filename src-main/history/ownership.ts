import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { SqliteDatabase } from './database';

/** Who drives a live session: a process on a host, told apart from a later one with the same pid. */
export interface ProcessIdentity {
  pid: number;
  /** The kernel's start time of the pid (Linux /proc), or null where the OS does not say. */
  processStart: string | null;
  host: string;
}

/** An owner whose heartbeat is older than this, on another host, is taken to be gone. */
export const STALE_HEARTBEAT_MS = 60_000;
/** How often an owner refreshes its heartbeat. */
export const HEARTBEAT_MS = 5_000;

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), or null off Linux. */
export function processStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // fields[0] is field 3 (state), so field 22 is fields[19]
  } catch {
    return null;
  }
}

let self: ProcessIdentity | null = null;

/** This process. */
export function currentProcess(): ProcessIdentity {
  self ??= { pid: process.pid, processStart: processStartOf(process.pid), host: hostname() };
  return self;
}

/** True while `pid` names a running process (EPERM: it exists but belongs to another user). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface OwnerRow {
  pid: number;
  process_start: string | null;
  host: string;
  heartbeat_at: number;
}

/**
 * Whether the process recorded as a session's owner is still alive. On this host: the pid exists
 * and, where the OS tells start times, it is the same process (not a reused pid). On another host
 * (a shared folder), only the heartbeat can tell: stale for STALE_HEARTBEAT_MS means gone.
 */
export function ownerIsAlive(owner: OwnerRow, now: number, me: ProcessIdentity = currentProcess()): boolean {
  if (owner.host !== me.host) return now - owner.heartbeat_at < STALE_HEARTBEAT_MS;
  if (owner.pid === me.pid) return owner.process_start === me.processStart;
  if (!pidExists(owner.pid)) return false;
  if (owner.process_start === null) return true;
  const start = processStartOf(owner.pid);
  return start === null || start === owner.process_start;
}

/** Prepared statements that record and refresh which process drives a session. */
export class OwnerRecords {
  private readonly upsert;
  private readonly remove;
  private readonly beat;

  constructor(db: SqliteDatabase) {
    this.upsert = db.prepare(`INSERT INTO session_owners
      (session_id, pid, process_start, host, claimed_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (session_id) DO UPDATE SET pid = excluded.pid, process_start = excluded.process_start,
      host = excluded.host, claimed_at = excluded.claimed_at, heartbeat_at = excluded.heartbeat_at`);
    this.remove = db.prepare('DELETE FROM session_owners WHERE session_id = ?');
    this.beat = db.prepare(
      'UPDATE session_owners SET heartbeat_at = ? WHERE session_id = ? AND pid = ? AND host = ?',
    );
  }

  /** This process now drives the session. */
  claim(sessionId: string, now: number): void {
    const me = currentProcess();
    this.upsert.run(sessionId, me.pid, me.processStart, me.host, now, now);
  }

  /** Nobody drives the session any more (it ended). */
  release(sessionId: string): void {
    this.remove.run(sessionId);
  }

  heartbeat(sessionIds: Iterable<string>, now: number): void {
    const me = currentProcess();
    for (const id of sessionIds) this.beat.run(now, id, me.pid, me.host);
  }
}
