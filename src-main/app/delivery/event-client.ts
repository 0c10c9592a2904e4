import type { Delivered } from '@shared/contract';

/**
 * One connected surface (a browser socket, a desktop window) as the event hub sees it: like a
 * chat server's rooms, it receives live run events only of the sessions it watches. Everything
 * else (store changes, progress, pings) goes to every client, so lists stay current from
 * `store.changed` summaries.
 */
export class EventClient {
  private watched: ReadonlySet<string> = new Set();

  /** Replaces the watched sessions. */
  watch(sessionIds: Iterable<string>): void {
    this.watched = new Set(sessionIds);
  }

  get watching(): string[] {
    return [...this.watched];
  }

  /** Whether `event` is for this client. */
  wants(event: Delivered): boolean {
    return event.channel !== 'run.events' || this.watched.has(event.payload.sessionId);
  }
}

/**
 * What a client receives of hub events after seq `after` (`events` in seq order, contiguous from
 * `after + 1`): its own events, with each run of skipped ones replaced by one `events.skipped`
 * marker so its gap check still holds. With `through`, a trailing run of skipped events up to
 * that seq is marked too (a replay must bring the client exactly up to the hub).
 */
export function addressedTo(
  client: EventClient | null,
  events: readonly Delivered[],
  after: number,
  through?: number,
): Delivered[] {
  const out: Delivered[] = [];
  let cursor = after;
  const skipTo = (seq: number) => {
    if (seq > cursor) out.push({ seq, channel: 'events.skipped', payload: { fromSeq: cursor + 1 } });
    cursor = seq;
  };
  for (const event of events) {
    if (event.seq <= cursor) continue;
    if (client && !client.wants(event)) continue;
    skipTo(event.seq - 1);
    out.push(event);
    cursor = event.seq;
  }
  if (through !== undefined) skipTo(through);
  return out;
}
