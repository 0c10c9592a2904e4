import type { Delivered } from '@shared/contract';

/**
 * Applies delivered events exactly once and in order. Duplicates (seq already applied) are
 * dropped; a gap is reported so the caller can heal it (replay or resync). An `events.skipped`
 * marker stands for seqs that went to other clients: it moves the position and applies nothing.
 */
export class Sequencer {
  lastSeq = 0;

  constructor(private readonly apply: (event: Delivered) => void) {}

  /** Returns false when `event` leaves a gap after lastSeq (it is not applied). */
  accept(event: Delivered): boolean {
    if (event.seq <= this.lastSeq) return true;
    const first = event.channel === 'events.skipped' ? event.payload.fromSeq : event.seq;
    if (first > this.lastSeq + 1) return false;
    this.lastSeq = event.seq;
    if (event.channel !== 'events.skipped') this.apply(event);
    return true;
  }

  /** Continues from `event` whatever came before (after a gap the caller resynchronizes). */
  restartAt(event: Delivered): void {
    this.lastSeq = event.seq - 1;
    if (event.channel === 'events.skipped') this.lastSeq = event.seq;
    else this.accept(event);
  }

  reset(seq: number): void {
    this.lastSeq = seq;
  }
}
