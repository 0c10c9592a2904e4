import type Database from 'better-sqlite3';
import { emptyView, FINAL_STATUSES, type RunEvent } from '@shared/domain';
import { openFileReadOnly, type SqliteDatabase } from './database';
import { ImportWriter, newTally } from './import-writer';
import { Materializer } from './materializer';
import { MessageQueries } from './message-queries';
import type { ImportedEvent } from './ports';
import { writeTransaction } from './write-turns';

/** Stop reason of a recovered session whose log ends before the session did. */
export const SALVAGED_REASON = 'Recovered from a damaged store; its log ends before the session did.';

export interface SalvageReport {
  /** Sessions read whole from the damaged file and written into the new store. */
  recovered: number;
  /** Sessions listed in the damaged file whose rows or events could not be read. */
  lost: number;
  /** Why nothing at all could be read (not a database, unknown schema), or null. */
  unreadable: string | null;
}

interface SessionRow {
  id: string;
  title: string;
  task: string;
  fleet_name: string;
  fleet_json: string | null;
  created_at: number;
  tags: string;
  source: string;
  read_only: number;
}

/** `read`, or null where the damaged file refuses it. */
function attempt<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/**
 * Session ids of a damaged store: by a scan of the table, else of its index by creation time,
 * else by probing row ids one by one (a corrupt page then costs the rows on it, not the rest).
 */
function sessionIds(db: SqliteDatabase): string[] | null {
  const scan = (sql: string) => attempt(() => (db.prepare(sql).pluck().all() as string[]) ?? null);
  const found =
    scan('SELECT id FROM sessions') ?? scan('SELECT id FROM sessions INDEXED BY sessions_by_created');
  if (found) return found;
  const max = attempt(() => db.prepare('SELECT max(rowid) FROM sessions').pluck().get() as number | null);
  if (max === null || max === undefined) return null;
  const byRowid = db.prepare('SELECT id FROM sessions WHERE rowid = ?').pluck();
  const ids: string[] = [];
  for (let rowid = 1; rowid <= max; rowid++) {
    const id = attempt(() => byRowid.get(rowid) as string | undefined);
    if (id) ids.push(id);
  }
  return ids;
}

/**
 * Copies every session that can still be read whole from the damaged store file `damagedFile`
 * into `target` (a fresh store at the current schema): its row (same id, title, task, tags,
 * source, creation time, fleet) and its events, re-materialised by the import path (messages,
 * counters, checkpoints, full-text index), a fork with its shared history as a session of its
 * own. A session whose log ends while it was live is ended as interrupted. The event log is the
 * record: a session whose row or events cannot be read is counted as lost, never half-copied.
 */
export function salvageSessions(
  target: SqliteDatabase,
  damagedFile: string,
  schemaVersion: number,
  checkpointInterval = 500,
  nativeBinding?: string,
): SalvageReport {
  let damaged: SqliteDatabase;
  try {
    damaged = openFileReadOnly(damagedFile, { nativeBinding });
  } catch (error) {
    return { recovered: 0, lost: 0, unreadable: (error as Error).message };
  }
  try {
    const version = attempt(() => damaged.pragma('user_version', { simple: true }) as number);
    if (version !== schemaVersion) {
      return {
        recovered: 0,
        lost: 0,
        unreadable: version === null ? 'it is not a readable database' : `it has another schema (${version})`,
      };
    }
    const ids = sessionIds(damaged);
    if (ids === null) return { recovered: 0, lost: 0, unreadable: 'its list of sessions cannot be read' };
    const rowOf = damaged.prepare('SELECT * FROM sessions WHERE id = ?');
    const queries = attempt(() => new MessageQueries(damaged));
    const materializer = new Materializer(target, checkpointInterval);
    const imports = new ImportWriter(target, materializer);
    const restore = target.prepare(
      `UPDATE sessions SET fleet_json = ?, tags = ?, source = ?, read_only = ? WHERE id = ?`,
    );
    const exists = target.prepare('SELECT 1 FROM sessions WHERE id = ?');
    const report: SalvageReport = { recovered: 0, lost: 0, unreadable: null };
    for (const id of ids) {
      const row = attempt(() => rowOf.get(id) as SessionRow | undefined);
      const events = row && queries ? attempt(() => [...queries.iterateEvents(id)]) : null;
      if (!row || !events || events.length === 0 || exists.get(id) !== undefined) {
        report.lost += 1;
        continue;
      }
      writeTransaction(target, () => copySession(imports, restore, row, events));
      report.recovered += 1;
    }
    return report;
  } finally {
    damaged.close();
  }
}

function copySession(
  imports: ImportWriter,
  restore: Database.Statement,
  row: SessionRow,
  events: RunEvent[],
): void {
  const meta = {
    title: row.title,
    task: row.task,
    fleetName: row.fleet_name,
    source: row.source,
    createdAt: row.created_at,
    tags: JSON.parse(row.tags) as string[],
  };
  imports.insertImported(row.id, meta, 'completed');
  const tally = newTally(row.id, row.created_at, 'completed', emptyView());
  const imported: ImportedEvent[] = events.map(
    ({ sessionId: _id, seq: _seq, ...rest }) => rest as ImportedEvent,
  );
  const last = events[events.length - 1] as RunEvent;
  const ended = last.kind === 'session.stopped' && FINAL_STATUSES.includes(last.payload.status);
  if (!ended) {
    imported.push({
      t: last.t,
      agent: null,
      kind: 'session.stopped',
      payload: { status: 'interrupted', stopReason: SALVAGED_REASON },
    } as ImportedEvent);
  }
  const { stopped } = imports.apply(tally, imported, 0);
  imports.finish(tally, row.created_at, stopped);
  restore.run(row.fleet_json, row.tags, row.source, row.read_only, row.id);
}
