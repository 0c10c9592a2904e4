import { describe, expect, it } from 'vitest';
import {
  BATCH_TARGET_MS,
  MAX_BATCH_EVENTS,
  MIN_BATCH_EVENTS,
  nextBatchEvents,
} from '../../../../src-main/interop/import/write-pacing';

describe('import batch sizes follow how long the last batch took to write', () => {
  it('shrinks after a slow batch and grows after a fast one, moving halfway each time', () => {
    // 100 events in 4x the target: the ideal is 25, the next size halfway there.
    expect(nextBatchEvents(100, 100, BATCH_TARGET_MS * 4)).toBe(63);
    // 100 events in a quarter of the target: ideal 400.
    expect(nextBatchEvents(100, 100, BATCH_TARGET_MS / 4)).toBe(250);
  });

  it('settles on the size that takes the target time', () => {
    let size = 100;
    const costPerEvent = BATCH_TARGET_MS / 300;
    for (let i = 0; i < 20; i++) size = nextBatchEvents(size, size, size * costPerEvent);
    expect(size).toBe(300);
  });

  it('stays within bounds, and keeps the size when nothing was written', () => {
    expect(nextBatchEvents(MIN_BATCH_EVENTS, MIN_BATCH_EVENTS, 10_000)).toBe(MIN_BATCH_EVENTS);
    expect(nextBatchEvents(MAX_BATCH_EVENTS, MAX_BATCH_EVENTS, 0)).toBe(MAX_BATCH_EVENTS);
    expect(nextBatchEvents(123, 0, 50)).toBe(123);
  });
});
