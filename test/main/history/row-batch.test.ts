import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ROWS_PER_STATEMENT, RowBatch } from '../../../src-main/history/row-batch';

describe('rows inserted many to a statement', () => {
  const open: Database.Database[] = [];
  afterEach(() => open.splice(0).forEach((db) => db.close()));

  const table = () => {
    const db = new Database(':memory:');
    open.push(db);
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b REAL) STRICT');
    return db;
  };
  const rowsOf = (db: Database.Database) => db.prepare('SELECT k, a, b FROM t ORDER BY rowid').raw().all();

  for (const count of [0, 1, ROWS_PER_STATEMENT - 1, ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 1, 100]) {
    it(`stores ${count} rows as one statement each would, in order`, () => {
      const rows = Array.from({ length: count }, (_, i) => [
        i * 7 + 3,
        i % 3 === 0 ? null : `text ${i} ✓ 'quoted'`,
        i % 2 ? i / 4 : -0.5,
      ]);
      const one = table();
      const insert = one.prepare('INSERT INTO t (k, a, b) VALUES (?, ?, ?)');
      for (const row of rows) insert.run(row);

      const batched = table();
      const batch = new RowBatch(batched, 'INSERT INTO t (k, a, b)', 3);
      for (const row of rows) batch.add(...row);
      // Whole statements' worth are in already; the rest arrive at flush.
      expect(rowsOf(batched)).toHaveLength(count - (count % ROWS_PER_STATEMENT));
      batch.flush();
      expect(rowsOf(batched)).toEqual(rowsOf(one));
      batch.flush();
      expect(rowsOf(batched)).toHaveLength(count);
    });
  }

  it('refuses a row of the wrong width and keeps the rows before it', () => {
    const db = table();
    const batch = new RowBatch(db, 'INSERT INTO t (k, a, b)', 3);
    batch.add(1, 'a', 1);
    expect(() => batch.add(2, 'b')).toThrow('A row of 2 values for 3 columns.');
    batch.flush();
    expect(rowsOf(db)).toEqual([[1, 'a', 1]]);
  });

  it('fails at the statement that breaks a constraint, as a single insert would', () => {
    const db = table();
    const batch = new RowBatch(db, 'INSERT INTO t (k, a, b)', 3);
    batch.add(1, 'a', 1);
    batch.add(1, 'again', 2);
    expect(() => batch.flush()).toThrow(/UNIQUE constraint failed/);
  });
});
