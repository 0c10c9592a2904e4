import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './database';

/**
 * Prepared statements for queries whose SQL is assembled from a few optional filters: each
 * distinct text is prepared once and reused. The number of distinct texts is bounded by the
 * filter combinations, so the cache needs no eviction.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
