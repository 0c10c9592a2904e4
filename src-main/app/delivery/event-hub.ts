import { randomUUID } from 'node:crypto';
import type { Delivered, EventChannel, EventPayload } from '@shared/contract';

export type DeliveredListener = (event: Delivered) => void;

/**
 * Numbers every event leaving main and keeps the most recent ones so a reconnecting surface can
 * replay exactly what it missed. A surface that fell further behind is told to resynchronize.
 */
export class EventHub {
  /** Identifies this hub's numbering; a client that saw another epoch must resynchronize. */
  readonly epoch = randomUUID();
  private seq = 0;
  private readonly buffer: Delivered[] = [];
  private readonly listeners = new Set<DeliveredListener>();

  constructor(private readonly capacity = 10_000) {}

  get lastSeq(): number {
    return this.seq;
  }

  emit<C extends EventChannel>(channel: C, payload: EventPayload<C>): void {
    const event = { seq: ++this.seq, channel, payload } as Delivered;
    this.buffer.push(event);
    if (this.buffer.length > this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
    for (const listener of this.listeners) listener(event);
  }

  /** Subscribe; returns the unsubscribe function. */
  onDidEmit(listener: DeliveredListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after `lastSeq`, or null when some of them are no longer buffered. */
  since(lastSeq: number): Delivered[] | null {
    if (lastSeq >= this.seq) return [];
    const first = this.buffer[0];
    if (!first || first.seq > lastSeq + 1) return null;
    return this.buffer.slice(lastSeq + 1 - first.seq);
  }
}
