import type { Delivered } from '@shared/contract';

/**
 * Applies delivered events exactly once and in order. Duplicates (seq already applied) are
 * dropped; a gap is reported so the caller can heal it (replay or resync).
 */
export class Sequencer {
  lastSeq = 0;

  constructor(private readonly apply: (event: Delivered) => void) {}

  /** Returns false when `event` leaves a gap after lastSeq (it is not applied). */
  accept(event: Delivered): boolean {
    if (event.seq <= this.lastSeq) return true;
    if (event.seq !== this.lastSeq + 1) return false;
    this.lastSeq = event.seq;
    this.apply(event);
    return true;
  }

  reset(seq: number): void {
    this.lastSeq = seq;
  }
}
