import { describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/app';

describe('the event hub', () => {
  it('numbers events one by one and replays exactly what a client missed', () => {
    const hub = new EventHub(100);
    for (let n = 0; n < 10; n++) hub.emit('ping', { n, at: n });
    expect(hub.lastSeq).toBe(10);
    expect(hub.since(7)?.map((event) => event.seq)).toEqual([8, 9, 10]);
    expect(hub.since(10)).toEqual([]);
  });

  it('says a client is too far behind once its events left the buffer', () => {
    const hub = new EventHub(5);
    for (let n = 0; n < 20; n++) hub.emit('ping', { n, at: n });
    expect(hub.since(2)).toBeNull();
    expect(hub.since(15)?.map((event) => event.seq)).toEqual([16, 17, 18, 19, 20]);
  });

  it('stops calling a listener after it unsubscribes', () => {
    const hub = new EventHub();
    const seen: number[] = [];
    const unsubscribe = hub.onDidEmit((event) => seen.push(event.seq));
    hub.emit('ping', { n: 0, at: 0 });
    unsubscribe();
    hub.emit('ping', { n: 1, at: 1 });
    expect(seen).toEqual([1]);
  });
});
