import type { HistoryStore } from '../../history';
import type { EventHub } from '../delivery/event-hub';

/** How often the store is read for sessions another process drives, in milliseconds. */
const POLL_MS = 200;
/** Events relayed per session per poll at most; the rest follow on the next poll. */
const MAX_EVENTS_PER_POLL = 2_000;

/**
 * Relays the events of sessions that another process drives (a `fleetscope run` in a terminal,
 * a script using the API) into this app's hub as `run.events`, so they stream into open views as
 * this app's own runs do. It tails the shared store: the other process commits its deltas in small
 * batches, which is the pace they appear at here.
 */
export class ForeignRunRelay {
  private readonly positions = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: HistoryStore,
    private readonly hub: EventHub,
    private readonly onError: (error: unknown) => void,
  ) {
    // Sessions live elsewhere at start: relay from where they are now (views load the past).
    for (const { id, lastSeq } of store.sessionsLiveElsewhere()) this.positions.set(id, lastSeq);
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.timer.unref?.();
  }

  dispose(): void {
    clearInterval(this.timer);
  }

  /** One pass: new events of every session live elsewhere, and the end of those no longer live. */
  poll(): void {
    try {
      const live = this.store.sessionsLiveElsewhere();
      const seen = new Set<string>();
      for (const { id, lastSeq } of live) {
        seen.add(id);
        // A session that went live elsewhere since the last poll: relay it from its start.
        this.relay(id, lastSeq, this.positions.get(id) ?? 0);
      }
      for (const [id, position] of this.positions) {
        if (seen.has(id)) continue;
        // It ended (or was interrupted): relay its last events once, then forget it.
        this.relay(id, this.store.countEvents(id), position);
        this.positions.delete(id);
      }
    } catch (error) {
      this.onError(error);
    }
  }

  private relay(id: string, lastSeq: number, position: number): void {
    if (lastSeq <= position) {
      this.positions.set(id, position);
      return;
    }
    const to = Math.min(lastSeq, position + MAX_EVENTS_PER_POLL);
    const events = [...this.store.iterateEvents(id, position, to)];
    this.positions.set(id, to);
    if (events.length === 0) return;
    this.hub.emit('run.events', { sessionId: id, events });
    this.hub.emit('store.changed', { topic: 'session', id });
    this.hub.emit('store.changed', { topic: 'sessions' });
  }
}
