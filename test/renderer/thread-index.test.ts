import { describe, expect, it } from 'vitest';
import { threadMessages } from '../../src-renderer/transcript/threading';
import { ThreadIndex, type RowSource } from '../../src-renderer/transcript/thread-index';

/** A deterministic pseudo-random forest: chains, fan-outs and new threads, parents always earlier. */
function forest(
  size: number,
  seed: number,
): { items: Array<{ id: string; parentId: string | null; threadId: string }>; parents: number[] } {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const items: Array<{ id: string; parentId: string | null; threadId: string }> = [];
  const parents: number[] = [];
  for (let i = 0; i < size; i++) {
    const roll = random();
    const parent = i === 0 || roll < 0.1 ? -1 : roll < 0.6 ? i - 1 : Math.floor(random() * i);
    items.push({ id: `m${i}`, parentId: parent < 0 ? null : `m${parent}`, threadId: 't' });
    parents.push(parent);
  }
  return { items, parents };
}

const all = (source: RowSource) => Array.from({ length: source.length }, (_, at) => source.rowAt(at));

describe('ThreadIndex', () => {
  it('cuts the whole-log threading at any count exactly as threading the prefix does', () => {
    for (const seed of [1, 7, 42]) {
      const { items, parents } = forest(300, seed);
      const index = new ThreadIndex(parents, items.length);
      for (const count of [0, 1, 2, 17, 150, 299, 300]) {
        expect(all(index.cut(count, () => false, false))).toEqual(
          threadMessages(items, new Set(), { count, parentIndex: parents }),
        );
      }
    }
  });

  it('hides the replies below collapsed messages as threading does', () => {
    const { items, parents } = forest(200, 3);
    const index = new ThreadIndex(parents, items.length);
    const collapsed = new Set(['m0', 'm5', 'm40', 'm120']);
    for (const count of [10, 60, 200]) {
      const cut = index.cut(count, (at) => collapsed.has(items[at]!.id), true);
      expect(all(cut)).toEqual(threadMessages(items, collapsed, { count, parentIndex: parents }));
      expect(Array.from({ length: cut.length }, (_, at) => cut.indexAt(at))).toEqual(
        all(cut).map((row) => row.index),
      );
    }
  });
});
