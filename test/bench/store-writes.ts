import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../../src-main/orchestrator';
import { openHistory, STORE_FILE } from '../../src-main/history';

/** What the history store does for one run, counted from outside it (the store is not changed). */
export interface StoreWrites {
  turns: number;
  /** Transactions committed (runs of COMMIT; a nested transaction commits nothing itself). */
  transactions: number;
  /** Prepared statement `run()` calls: rows inserted, updated or deleted, roughly. */
  statementRuns: number;
  /** Events the runtime appended, by kind. */
  eventsByKind: Record<string, number>;
  perTurn: {
    transactions: number;
    statementRuns: number;
    events: number;
    eventsByKind: Record<string, number>;
  };
  /** The store file after closing (WAL checkpointed into it). */
  storeBytes: number;
  /** UTF-8 bytes of the task and every completed message's text. */
  textBytes: number;
  /** Bytes per table and index (SQLite's dbstat), largest first. */
  tables: Array<{ name: string; bytes: number }>;
}

type StatementPrototype = { run: (...args: unknown[]) => unknown };

/**
 * Runs `drive` (which must run exactly one session into the store it is given) into a fresh store
 * in `folder`, counting transactions on that database and statement runs (all statements of the
 * process, for the duration), and the events appended. The counting costs time: never time this.
 */
export async function measureStoreWrites(
  folder: string,
  drive: (store: EventSink) => Promise<void>,
): Promise<StoreWrites> {
  const history = openHistory(folder, { recover: false });
  const db: Database.Database = history.db;
  let transactions = 0;
  let statementRuns = 0;
  const eventsByKind: Record<string, number> = {};
  let textBytes = 0;

  const statement = Object.getPrototypeOf(db.prepare('SELECT 1')) as StatementPrototype;
  const run = statement.run;
  // A commit is a run of better-sqlite3's own COMMIT statement (an outermost transaction's end;
  // nested ones release a savepoint instead), whichever way the transaction began and whenever its
  // function was made: the writers make theirs once, before this counting starts.
  statement.run = function (this: { source?: string }, ...args: unknown[]) {
    statementRuns += 1;
    if (this.source === 'COMMIT') transactions += 1;
    return run.apply(this, args);
  };

  const counting: EventSink = {
    append(event: RunEvent) {
      eventsByKind[event.kind] = (eventsByKind[event.kind] ?? 0) + 1;
      if (event.kind === 'message.completed')
        textBytes += Buffer.byteLength(event.payload.message.content, 'utf8');
      history.store.append(event);
    },
    flush() {
      history.store.flush();
    },
    whenDurable(callback: () => void) {
      history.store.whenDurable(callback);
    },
  };
  let turns = 0;
  try {
    await drive(counting);
    turns = (eventsByKind['message.completed'] ?? 1) - 1;
  } finally {
    statement.run = run;
  }
  const tables = tableSizes(db);
  history.close();
  const file = join(folder, STORE_FILE);
  const storeBytes = ['', '-wal'].reduce(
    (sum, suffix) => sum + (existsSync(file + suffix) ? statSync(file + suffix).size : 0),
    0,
  );
  const events = Object.values(eventsByKind).reduce((sum, count) => sum + count, 0);
  const per = (count: number) => count / Math.max(1, turns);
  return {
    turns,
    transactions,
    statementRuns,
    eventsByKind,
    perTurn: {
      transactions: per(transactions),
      statementRuns: per(statementRuns),
      events: per(events),
      eventsByKind: Object.fromEntries(
        Object.entries(eventsByKind).map(([kind, count]) => [kind, per(count)]),
      ),
    },
    storeBytes,
    textBytes,
    tables,
  };
}

/** Bytes per table and index (SQLite's dbstat), the largest `limit`; empty where dbstat is missing. */
export function tableSizes(db: Database.Database, limit = 12): Array<{ name: string; bytes: number }> {
  try {
    return db
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT ?')
      .all(limit) as Array<{ name: string; bytes: number }>;
  } catch {
    // dbstat is not compiled into every SQLite build; the total size is still known.
    return [];
  }
}
