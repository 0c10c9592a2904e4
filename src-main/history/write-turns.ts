import { CheckpointThread } from './checkpoint-thread';
import { IMPORTING, MAIN, SLOTS, THREAD, WRITTEN } from './turn-slots';
import type { SqliteDatabase } from './database';

/** SQLite's default WAL size, in pages, past which a commit checkpoints. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * Writes on the store's connection before its checkpoints move to a thread of their own
 * (checkpoint-thread.ts): a store written a few times (a CLI command, most tests) never starts one.
 */
const THREAD_CHECKPOINTS_AFTER = 32;

/** Atomics.waitAsync (ES2024, in Node since 16; the project's lib setting predates its types). */
interface AtomicsWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
    timeoutMs: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** Whether this thread may block in Atomics.wait (some embedders' main threads may not). */
const canBlock = ((): boolean => {
  try {
    // A value that does not match returns at once where blocking is allowed, and throws where not.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Turns at the store's write lock between its own connection (main thread) and an import's
 * writing thread. Left to SQLite, the thread would take the lock again right after each commit
 * while the main thread's busy handler sleeps between retries (its waits grow to 100 ms and it
 * is not fair), so a live write could wait out many transactions. Instead, in shared memory, the
 * main thread counts its write transactions waiting or running (MAIN) and the thread says when
 * it holds a transaction (THREAD): the main thread waits for THREAD to clear before it begins,
 * and the thread ends its transaction at its next chunk once MAIN is set, and begins none while
 * it is. Each side sets its own slot before it reads the other's, so both never go at once.
 */
export class WriteTurns {
  readonly shared = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.shared);
  /**
   * The last turn that found the writing thread in its transaction: the events the thread wrote
   * after this thread asked and before it left (at most about one of its chunks, see
   * run-write-job.ts), and the milliseconds this thread waited.
   */
  lastWait: { threadEvents: number; waitedMs: number } | null = null;
  /** Writes `whenThreadOut` left to the event loop because the thread was in its transaction. */
  waitedOnLoop = 0;
  /** Whether the connection checkpoints the WAL after its own commits (SQLite's default). */
  private autoCheckpoint = true;
  /** Where a checkpointing thread opens the store (`checkpointOnThread`); null: none. */
  private checkpointTarget: { file: string; nativeBinding?: string } | null = null;
  private checkpoints: CheckpointThread | null = null;
  /** Writes counted towards THREAD_CHECKPOINTS_AFTER; -1 once the thread was started (or tried). */
  private writesBeforeThread = 0;
  private disposed = false;

  /** `connection`: the store's own, whose automatic checkpoints pause while an import writes. */
  constructor(private readonly connection: SqliteDatabase) {}

  /**
   * Switches the connection's automatic checkpoints off while an import's writing thread has a
   * job (importThreadStarted), on again after. The thread checkpoints between its transactions,
   * outside its turn (run-write-job.ts); left on here, the first live commit after the thread's
   * turn would copy what the thread wrote into the database, stalling the main thread for as long
   * (hundreds of milliseconds in a store of a million messages).
   */
  private followImports(): void {
    // Neither while an import's writing thread checkpoints, nor while the store's own thread does.
    const wanted = !this.importing() && !this.checkpoints?.running();
    if (wanted === this.autoCheckpoint) return;
    this.connection.pragma(`wal_autocheckpoint = ${wanted ? AUTO_CHECKPOINT_PAGES : 0}`);
    this.autoCheckpoint = wanted;
  }

  /** Whether an import's writing thread has a job (importThreadStarted): it may hold the lock. */
  importing(): boolean {
    return Atomics.load(this.slots, IMPORTING) > 0;
  }

  /**
   * Runs `write` (which takes its turn itself, through `mine`) once the writing thread is out of
   * its transaction: at once when it is, else on this thread's event loop once it has left (or
   * after `maxWaitMs`), having asked it to as `mine` does but without blocking this thread
   * meanwhile; the writing thread begins no transaction until `write` has returned. For writes
   * nobody waits on synchronously (a live run's group commit): this thread goes on instead of
   * stalling for the rest of the thread's chunk and its commit, which take long when the
   * machine's cores are busy. Returns whether `write` ran at once.
   */
  whenThreadOut(write: () => void, maxWaitMs = 2_000): boolean {
    // Asked before THREAD is read (as in `mine`), so a transaction the thread begins after this
    // read is one it begins only after `write`.
    Atomics.add(this.slots, MAIN, 1);
    const run = () => {
      try {
        write();
      } finally {
        Atomics.sub(this.slots, MAIN, 1);
        Atomics.notify(this.slots, MAIN);
      }
    };
    if (Atomics.load(this.slots, THREAD) === 0) {
      run();
      return true;
    }
    this.waitedOnLoop += 1;
    const waited = (Atomics as unknown as AtomicsWaitAsync).waitAsync(this.slots, THREAD, 1, maxWaitMs);
    if (waited.async) void waited.value.then(run);
    else queueMicrotask(run);
    return false;
  }

  /**
   * Runs `write` (a write transaction on the store's own connection) once the writing thread is
   * out of its transaction, waiting at most `maxWaitMs` for it (then SQLite's busy wait decides).
   */
  mine<T>(write: () => T, maxWaitMs = 2_000): T {
    Atomics.add(this.slots, MAIN, 1);
    try {
      const asked = performance.now();
      const until = asked + maxWaitMs;
      if (Atomics.load(this.slots, THREAD) !== 0) {
        const writtenAtAsk = Atomics.load(this.slots, WRITTEN);
        while (canBlock && Atomics.load(this.slots, THREAD) !== 0) {
          const left = until - performance.now();
          if (left <= 0) break;
          Atomics.wait(this.slots, THREAD, 1, left);
        }
        this.lastWait = {
          threadEvents: (Atomics.load(this.slots, WRITTEN) - writtenAtAsk) >>> 0,
          waitedMs: performance.now() - asked,
        };
      }
      this.followImports();
      const result = write();
      this.wrote();
      return result;
    } finally {
      Atomics.sub(this.slots, MAIN, 1);
      Atomics.notify(this.slots, MAIN);
    }
  }

  /**
   * Moves the connection's checkpoints to a thread of their own (checkpoint-thread.ts) once it has
   * written THREAD_CHECKPOINTS_AFTER times; the connection of a store file, not in memory.
   */
  checkpointOnThread(file: string, nativeBinding?: string): void {
    this.checkpointTarget = { file, nativeBinding };
  }

  /** Whether the store's checkpoints run on its checkpointing thread now. */
  checkpointsOnThread(): boolean {
    return this.checkpoints?.running() === true;
  }

  /** Ends the checkpointing thread (waiting briefly for its connection to close). */
  dispose(): void {
    this.disposed = true;
    this.checkpoints?.close();
  }

  /** After each write: asks the checkpointing thread for a copy, or starts it. */
  private wrote(): void {
    if (this.checkpoints?.running()) {
      if (!this.importing()) this.checkpoints.request();
      return;
    }
    if (this.checkpointTarget === null || this.writesBeforeThread < 0 || this.disposed) return;
    this.writesBeforeThread += 1;
    if (this.writesBeforeThread < THREAD_CHECKPOINTS_AFTER) return;
    this.writesBeforeThread = -1;
    const { file, nativeBinding } = this.checkpointTarget;
    // Until it runs (or if it cannot start), the connection checkpoints as SQLite does.
    void CheckpointThread.start(file, this.shared, nativeBinding).then((thread) => {
      if (thread && this.disposed) thread.close();
      else this.checkpoints = thread;
    });
  }
}

/** The turns of each connection of this thread (one per store's own connection). */
const turnsByConnection = new WeakMap<SqliteDatabase, WriteTurns>();

/** The turns every write on `connection` takes (the same object for the connection's lifetime). */
export function writeTurnsOf(connection: SqliteDatabase): WriteTurns {
  let turns = turnsByConnection.get(connection);
  if (!turns) {
    turns = new WriteTurns(connection);
    turnsByConnection.set(connection, turns);
  }
  return turns;
}

/**
 * A write transaction on the store's own connection, in its turn beside an import's writing
 * thread, begun IMMEDIATE: a deferred one that read first fails at once (SQLITE_BUSY) when the
 * other connection commits between its first read and its first write, where busy_timeout
 * would have waited for the lock had it been taken at BEGIN. Every writer on the main
 * connection goes through this (or `inWriteTurn` for one statement), so none is starved by the
 * thread's back-to-back transactions or refused mid-way.
 */
export function writeTransaction<T>(connection: SqliteDatabase, write: () => T): T {
  return writeTurnsOf(connection).mine(() => connection.transaction(write).immediate());
}

/** One write statement on the store's own connection, in its turn (see writeTransaction). */
export function inWriteTurn<T>(connection: SqliteDatabase, write: () => T): T {
  return writeTurnsOf(connection).mine(write);
}

/** The writing thread's side of WriteTurns (on the same SharedArrayBuffer). */
export class ThreadWriteTurns {
  private readonly slots: Int32Array;
  /** performance.now() when the main thread was last seen wanting to write. */
  private lastWanted = -Infinity;

  constructor(shared: SharedArrayBuffer) {
    this.slots = new Int32Array(shared);
  }

  /** The main thread waits to write: end the transaction now. */
  wanted(): boolean {
    if (Atomics.load(this.slots, MAIN) === 0) return false;
    this.lastWanted = performance.now();
    return true;
  }

  /**
   * Whether the main thread wanted to write within the last `windowMs` (a live run commits
   * every few milliseconds: it will want to again soon).
   */
  wantedWithin(windowMs: number): boolean {
    return performance.now() - this.lastWanted < windowMs;
  }

  /** Counts `events` more written (read by the main thread when a turn waited: WriteTurns.lastWait). */
  wrote(events: number): void {
    Atomics.add(this.slots, WRITTEN, events);
  }

  /**
   * Runs `transaction` once the main thread has no write waiting or running (waiting at most
   * `maxWaitMs` in all: a count left behind must not stop the import for good), flagged as this
   * thread's for its whole length.
   */
  mine<T>(transaction: () => T, maxWaitMs: number): T {
    const until = performance.now() + maxWaitMs;
    for (;;) {
      Atomics.store(this.slots, THREAD, 1);
      const main = Atomics.load(this.slots, MAIN);
      if (main === 0 || performance.now() >= until) break;
      this.lastWanted = performance.now();
      this.release();
      Atomics.wait(this.slots, MAIN, main, Math.max(1, until - performance.now()));
    }
    try {
      return transaction();
    } finally {
      this.release();
    }
  }

  private release(): void {
    Atomics.store(this.slots, THREAD, 0);
    Atomics.notify(this.slots, THREAD);
  }
}

/** An import's writing thread got its job: the store's own connection stops checkpointing. */
export function importThreadStarted(shared: SharedArrayBuffer): void {
  Atomics.add(new Int32Array(shared), IMPORTING, 1);
}

/**
 * The writing thread of a job (importThreadStarted) has ended (finished, failed or stopped,
 * possibly inside a transaction, which SQLite rolled back): its turn is over, so live writes
 * never wait for it again, and the store's own connection checkpoints again.
 */
export function threadTurnEnded(shared: SharedArrayBuffer): void {
  const slots = new Int32Array(shared);
  Atomics.sub(slots, IMPORTING, 1);
  Atomics.store(slots, THREAD, 0);
  Atomics.notify(slots, THREAD);
}
