import { randomUUID } from 'node:crypto';
import { fleetSchema, type FleetInput } from '@shared/domain';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import { inWriteTurn } from './write-turns';

export interface SavedFleetSummary {
  id: string;
  name: string;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export interface SavedFleet extends SavedFleetSummary {
  /** The fleet as the user wrote it (defaults not applied), so saving round-trips exactly. */
  fleet: FleetInput;
}

interface FleetRow {
  id: string;
  name: string;
  json: string;
  created_at: number;
  updated_at: number;
}

const summary = (row: FleetRow): SavedFleetSummary => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Saved fleet files. A fleet is validated before it is saved; invalid ones are refused. */
export class FleetStore {
  private readonly listRows;
  private readonly byId;
  private readonly upsert;
  private readonly remove;

  constructor(private readonly db: SqliteDatabase) {
    this.listRows = db.prepare(
      'SELECT id, name, json, created_at, updated_at FROM fleets ORDER BY name COLLATE NOCASE, id',
    );
    this.byId = db.prepare('SELECT id, name, json, created_at, updated_at FROM fleets WHERE id = ?');
    this.upsert =
      db.prepare(`INSERT INTO fleets (id, name, json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, json = excluded.json, updated_at = excluded.updated_at`);
    this.remove = db.prepare('DELETE FROM fleets WHERE id = ?');
  }

  list(): SavedFleetSummary[] {
    return (this.listRows.all() as FleetRow[]).map(summary);
  }

  get(id: string): SavedFleet | null {
    const row = this.byId.get(id) as FleetRow | undefined;
    return row ? { ...summary(row), fleet: JSON.parse(row.json) as FleetInput } : null;
  }

  /** Creates (no id) or replaces (id) a saved fleet. `now` is epoch milliseconds. */
  save(fleet: FleetInput, id: string = randomUUID(), now: number = Date.now()): SavedFleet {
    const checked = fleetSchema.safeParse(fleet);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new HistoryError(
        'invalid-input',
        `The fleet is not valid${where}: ${issue?.message ?? 'unknown problem'}`,
      );
    }
    inWriteTurn(this.db, () => this.upsert.run(id, checked.data.name, JSON.stringify(fleet), now, now));
    return this.get(id) as SavedFleet;
  }

  /** True when a fleet was deleted. */
  delete(id: string): boolean {
    return inWriteTurn(this.db, () => this.remove.run(id)).changes > 0;
  }
}
