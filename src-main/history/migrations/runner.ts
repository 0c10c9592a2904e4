import type Database from 'better-sqlite3';

/** One schema step. `version` is the `user_version` the database has after `up`. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Database.Database, migrations: readonly Migration[]): number {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migrations must be numbered 1..n without gaps; found ${migration.version} at ${index + 1}`,
      );
    }
  });
  let current = db.pragma('user_version', { simple: true }) as number;
  const latest = ordered.length;
  if (current > latest) {
    throw new Error(
      `This data folder was written by a newer Fleetscope (schema ${current}, this build knows ${latest}).`,
    );
  }
  for (const migration of ordered.slice(current)) {
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
    current = migration.version;
  }
  return current;
}
