import type { SqliteDatabase } from './database';

/** Rows one multi-row statement inserts: few enough bound values for any SQLite build (999). */
export const ROWS_PER_STATEMENT = 32;

/**
 * Rows of one plain INSERT held back and inserted ROWS_PER_STATEMENT at a time by one
 * `INSERT ... VALUES (...), (...)` statement, in the order they were added (the rest one by one
 * at `flush`): the same rows as one statement each, with a fraction of the statements. Only for
 * rows nothing reads back or changes before `flush`, which the owner calls before any statement
 * that could, and before its transaction commits. Rows still held when a statement fails are
 * never written: the connection's writer gives up on its transaction and this batch with it.
 */
export class RowBatch {
  private readonly single;
  private readonly full;
  private readonly columns: number;
  private readonly values: unknown[] = [];

  /** `insert`: `INSERT INTO table (columns...)` without VALUES; `columns`: how many it names. */
  constructor(db: SqliteDatabase, insert: string, columns: number) {
    const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
    this.columns = columns;
    this.single = db.prepare(`${insert} VALUES ${row}`);
    this.full = db.prepare(
      `${insert} VALUES ${Array.from({ length: ROWS_PER_STATEMENT }, () => row).join(', ')}`,
    );
  }

  /** Adds one row (`columns` values, in the statement's order). */
  add(...row: unknown[]): void {
    if (row.length !== this.columns)
      throw new Error(`A row of ${row.length} values for ${this.columns} columns.`);
    for (const value of row) this.values.push(value);
    if (this.values.length === this.columns * ROWS_PER_STATEMENT) {
      this.full.run(this.values);
      this.values.length = 0;
    }
  }

  /** Inserts every row held. */
  flush(): void {
    for (let at = 0; at < this.values.length; at += this.columns)
      this.single.run(this.values.slice(at, at + this.columns));
    this.values.length = 0;
  }
}
