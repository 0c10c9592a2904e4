import { describe, expect, it } from 'vitest';
import type { Delivered } from '@shared/contract';
import { Sequencer } from '../../src-renderer/bridge/sequencer';

const ping = (seq: number): Delivered => ({ seq, channel: 'ping', payload: { n: seq, at: seq } });

describe('the event sequencer', () => {
  it('applies each event once, in order, and reports a gap without applying it', () => {
    const applied: number[] = [];
    const sequencer = new Sequencer((event) => applied.push(event.seq));
    expect([1, 2, 2, 1, 3].map((seq) => sequencer.accept(ping(seq)))).toEqual([true, true, true, true, true]);
    expect(sequencer.accept(ping(5))).toBe(false);
    expect(applied).toEqual([1, 2, 3]);
    sequencer.reset(4);
    expect(sequencer.accept(ping(5))).toBe(true);
    expect(applied).toEqual([1, 2, 3, 5]);
  });
});
