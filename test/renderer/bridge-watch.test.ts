import { describe, expect, it } from 'vitest';
import type { Delivered } from '@shared/contract';
import { createIpcBridge } from '../../src-renderer/bridge/ipc-bridge';
import { Sequencer } from '../../src-renderer/bridge/sequencer';
import type { PreloadApi } from '../../src-renderer/bridge/types';
import { WatchSet } from '../../src-renderer/bridge/watch-set';

const ping = (seq: number): Delivered => ({ seq, channel: 'ping', payload: { n: seq, at: seq } });
const skipped = (fromSeq: number, seq: number): Delivered => ({
  seq,
  channel: 'events.skipped',
  payload: { fromSeq },
});

describe('seqs that went to other clients', () => {
  it('are passed over by the sequencer without applying anything, and still count for the gap check', () => {
    const applied: number[] = [];
    const sequencer = new Sequencer((event) => applied.push(event.seq));
    expect(sequencer.accept(ping(1))).toBe(true);
    expect(sequencer.accept(skipped(2, 4))).toBe(true);
    expect(sequencer.accept(ping(5))).toBe(true);
    expect(sequencer.accept(skipped(2, 4))).toBe(true);
    expect(sequencer.accept(skipped(7, 8))).toBe(false);
    expect(sequencer.lastSeq).toBe(5);
    expect(sequencer.accept(skipped(6, 8))).toBe(true);
    expect(sequencer.accept(ping(9))).toBe(true);
    expect(applied).toEqual([1, 5, 9]);
  });

  it('never reach the views of the desktop bridge, even after a gap', () => {
    let deliver: (events: Delivered[]) => void = () => undefined;
    const api: PreloadApi = {
      surface: 'desktop',
      calls: {},
      onEvents: (listener) => {
        deliver = listener;
        return () => undefined;
      },
    };
    const bridge = createIpcBridge(api);
    const seen: Delivered[] = [];
    let resyncs = 0;
    bridge.onDidReceiveEvent((event) => seen.push(event));
    bridge.onDidRequireResync(() => resyncs++);
    deliver([ping(1), skipped(2, 3), ping(4)]);
    deliver([skipped(10, 12), ping(13)]);
    expect(seen.map((event) => event.seq)).toEqual([1, 4, 13]);
    expect(resyncs).toBe(1);
  });
});

describe('the watched sessions of a renderer', () => {
  it('sends the set when a session is first watched and when the last opener lets go', () => {
    const sent: string[][] = [];
    const watched = new WatchSet((ids) => sent.push(ids));
    const first = watched.add('a');
    const second = watched.add('a');
    const other = watched.add('b');
    first();
    first();
    expect(watched.ids).toEqual(['a', 'b']);
    second();
    other();
    expect(sent).toEqual([['a'], ['a', 'b'], ['b'], []]);
  });

  it('asks the desktop backend through sessions.watch', async () => {
    const calls: Array<[string, unknown]> = [];
    const api: PreloadApi = {
      surface: 'desktop',
      calls: {
        'sessions.watch': async (payload) => {
          calls.push(['sessions.watch', payload]);
          return { ok: true, value: payload };
        },
      },
      onEvents: () => () => undefined,
    };
    const bridge = createIpcBridge(api);
    const release = bridge.watchSession('s1');
    release();
    await Promise.resolve();
    expect(calls).toEqual([
      ['sessions.watch', { ids: ['s1'] }],
      ['sessions.watch', { ids: [] }],
    ]);
  });
});
