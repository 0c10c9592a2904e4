import type Database from 'better-sqlite3';
import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../../src-main/orchestrator';

/**
 * Sinks that put the history store behind a change it does not make (yet), to measure from
 * outside what that change would save. Bench-only: neither keeps the store's promises (a log
 * without deltas cannot replay the streaming; a group commit must hold back what is shown until
 * it lands), so they price the next step and nothing else.
 */

/** Kinds a store that keeps each text once, and derives statuses, would not write as rows. */
const DERIVABLE: ReadonlySet<RunEvent['kind']> = new Set(['message.delta', 'agent.status']);

/** Forwards every event but token deltas and agent statuses. */
export class WithoutDerivableEvents implements EventSink {
  constructor(private readonly store: EventSink) {}

  append(event: RunEvent): void {
    if (!DERIVABLE.has(event.kind)) this.store.append(event);
  }

  flush(): void {
    this.store.flush();
  }
}

/**
 * Hands the events to the store every `ms` milliseconds inside one outer transaction on its
 * database, so the store's own commits become savepoints and each batch is one SQLite commit (a
 * group commit). The runtime's flush() only schedules; `drain()` writes what is left.
 */
export class GroupCommit implements EventSink {
  private pending: RunEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  commits = 0;

  constructor(
    private readonly store: EventSink,
    private readonly db: Database.Database,
    private readonly ms = 50,
  ) {}

  append(event: RunEvent): void {
    this.pending.push(event);
    this.timer ??= setTimeout(() => this.drain(), this.ms);
  }

  flush(): void {
    this.timer ??= setTimeout(() => this.drain(), this.ms);
  }

  drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.commits += 1;
    this.db.transaction(() => {
      for (const event of batch) this.store.append(event);
      this.store.flush();
    })();
  }
}
