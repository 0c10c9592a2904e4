import type { SqliteDatabase } from './database';

/** FTS5's default `automerge`: a level with this many segments is merged into one. */
export const FTS_AUTOMERGE = 4;

/**
 * Leaf pages one `merge` step writes at most (FTS5 pages of about 4 KB): most steps take under
 * 3 ms, one that ends a merge of large segments up to about 40 ms (a million messages). A write
 * of the main thread waits for the step under way (thread-write-job.ts).
 */
const MERGE_STEP_PAGES = 8;

/**
 * FTS5 merges the full-text index's segments in whichever connection commits: every commit adds
 * a segment, and a commit that crosses FTS5's work counter (shared by every connection, advanced
 * by the pages each one writes) merges about 64 pages per level of the index, levels that may
 * hold segments of an import. While an import's writing thread writes most of the pages, a live
 * commit of four events then merged its segments: 17-55 ms of CPU on the main thread, measured
 * in a million-message import (test/bench/history.bench.ts, import-live-stall), the longest live
 * commits it had.
 *
 * So while an import's writing thread has a job, automatic merging is off (`automerge` 0, a
 * setting of the table that every connection reads) and the thread merges instead, in steps,
 * between its chunks (`step`): no level is left with FTS_AUTOMERGE segments or more for long, so
 * no connection reaches FTS5's crisis merge (16 segments on a level) either. The thread turns it
 * back on in its last transaction, or when it ends otherwise; a process killed meanwhile leaves it
 * off until the store's next recovery finds no import being written (recovery.ts).
 */
export class FtsMerging {
  private readonly automergeOff;
  private readonly automergeOn;
  private readonly merge;
  private readonly totalChanges;
  private readonly automerge;

  constructor(db: SqliteDatabase) {
    // Literals: FTS5 takes only an integer, and a bound number is a REAL.
    const setAutomerge = (value: number) =>
      db.prepare(`INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', ${value})`);
    this.automergeOff = setAutomerge(0);
    this.automergeOn = setAutomerge(FTS_AUTOMERGE);
    this.merge = db.prepare(
      `INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`,
    );
    this.totalChanges = db.prepare('SELECT total_changes() AS n').pluck();
    this.automerge = db.prepare("SELECT v FROM messages_fts_config WHERE k = 'automerge'").pluck();
  }

  /** Whether commits merge the index themselves (FTS5's default, unless `pause` left it off). */
  automatic(): boolean {
    return this.automerge.get() !== 0;
  }

  /** Commits stop merging; the caller merges (`step`). In a write transaction. */
  pause(): void {
    this.automergeOff.run();
  }

  /** Commits merge again, as FTS5 does by default. In a write transaction. */
  resume(): void {
    this.automergeOn.run();
  }

  /**
   * Merges up to MERGE_STEP_PAGES pages of the index (first a merge under way, then a level with
   * FTS_AUTOMERGE segments or more). Returns whether there was any to merge: FTS5 changes two rows
   * or more when it merged, none otherwise. In a write transaction.
   */
  step(): boolean {
    const before = this.totalChanges.get() as number;
    this.merge.run();
    return (this.totalChanges.get() as number) - before >= 2;
  }
}
