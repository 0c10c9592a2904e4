import { MAX_DEPTH, type ThreadRow } from './threading';

/**
 * The transcript rows at one playhead, held as typed arrays so a cut of 100k messages allocates
 * no row objects: `rowAt` builds one only for a row that is drawn. Positions are row numbers in
 * display order; indexes are positions in the message log.
 */
export interface RowSource {
  readonly length: number;
  /** Log index of the row at `position` (0 <= position < length). */
  indexAt(position: number): number;
  rowAt(position: number): ThreadRow;
}

/**
 * Threading of a whole message log, computed once per log size (not per seek). Children always
 * come after their parent, so the rows visible at a playhead (the first `count` messages) are the
 * whole-log depth-first order with indexes >= count left out: `cut` filters that order and
 * recomputes depth, descendants and child counts for the prefix, in a few linear passes.
 * Gives exactly what `threadMessages(items, collapsed, { count, parentIndex })` gives.
 */
export class ThreadIndex {
  /** Items threaded (the log size when built). */
  readonly size: number;
  /** parents[i]: index of item i's parent (always < i), or -1 for a thread start. */
  private readonly parents: Int32Array;
  /** Every item in depth-first order (replies in arrival order under what they answer). */
  private readonly order: Int32Array;
  /** subtreeEnd[i]: the position in `order` just after item i's subtree. */
  private readonly subtreeEnd: Int32Array;

  constructor(parentIndex: ArrayLike<number>, size: number) {
    this.size = size;
    const parents = new Int32Array(size);
    for (let index = 0; index < size; index++) {
      const parent = parentIndex[index] ?? -1;
      parents[index] = parent >= 0 && parent < index ? parent : -1;
    }
    this.parents = parents;
    // Children as linked lists in arrival order.
    const firstChild = new Int32Array(size).fill(-1);
    const lastChild = new Int32Array(size).fill(-1);
    const nextSibling = new Int32Array(size).fill(-1);
    const roots: number[] = [];
    for (let index = 0; index < size; index++) {
      const parent = parents[index] as number;
      if (parent < 0) {
        roots.push(index);
        continue;
      }
      if (firstChild[parent] === -1) firstChild[parent] = index;
      else nextSibling[lastChild[parent] as number] = index;
      lastChild[parent] = index;
    }
    const subtree = new Int32Array(size).fill(1);
    for (let index = size - 1; index >= 0; index--) {
      const parent = parents[index] as number;
      if (parent >= 0) subtree[parent] = (subtree[parent] as number) + (subtree[index] as number);
    }
    // Iterative depth-first walk (long reply chains must not overflow the stack).
    const order = new Int32Array(size);
    const subtreeEnd = new Int32Array(size);
    const stack: number[] = [];
    for (let r = roots.length - 1; r >= 0; r--) stack.push(roots[r] as number);
    let position = 0;
    while (stack.length > 0) {
      const index = stack.pop() as number;
      subtreeEnd[index] = position + (subtree[index] as number);
      order[position++] = index;
      const mark = stack.length;
      for (let child = firstChild[index] as number; child !== -1; child = nextSibling[child] as number) stack.push(child);
      reverseFrom(stack, mark);
    }
    this.order = order;
    this.subtreeEnd = subtreeEnd;
  }

  /**
   * The rows when only the first `count` items have appeared. `isCollapsed(index)` hides the
   * replies below that item (asked only when `anyCollapsed`).
   */
  cut(count: number, isCollapsed: (index: number) => boolean, anyCollapsed: boolean): RowSource {
    const n = Math.max(0, Math.min(count, this.size));
    const { parents, order, subtreeEnd } = this;
    const childCount = new Int32Array(n);
    for (let index = 0; index < n; index++) {
      const parent = parents[index] as number;
      if (parent >= 0) childCount[parent] = (childCount[parent] as number) + 1;
    }
    const descendants = new Int32Array(n);
    for (let index = n - 1; index >= 0; index--) {
      const parent = parents[index] as number;
      if (parent >= 0) descendants[parent] = (descendants[parent] as number) + 1 + (descendants[index] as number);
    }
    const depth = new Int32Array(n);
    const collapsed = anyCollapsed ? new Uint8Array(n) : null;
    const rows = new Int32Array(n);
    let length = 0;
    let position = 0;
    while (position < this.size) {
      const index = order[position] as number;
      // Everything below a later item is later still: skip the whole subtree.
      if (index >= n) {
        position = subtreeEnd[index] as number;
        continue;
      }
      const parent = parents[index] as number;
      if (parent >= 0) {
        const parentDepth = depth[parent] as number;
        depth[index] = (childCount[parent] as number) > 1 ? Math.min(MAX_DEPTH, parentDepth + 1) : parentDepth;
      }
      rows[length++] = index;
      if (collapsed && isCollapsed(index)) {
        collapsed[index] = 1;
        position = subtreeEnd[index] as number;
      } else {
        position += 1;
      }
    }
    return {
      length,
      indexAt: (at) => rows[at] as number,
      rowAt: (at) => {
        const index = rows[at] as number;
        const threadStart = (parents[index] as number) < 0;
        return {
          index,
          depth: depth[index] as number,
          descendants: descendants[index] as number,
          collapsed: collapsed !== null && collapsed[index] === 1,
          threadStart,
          toggleable: threadStart || (childCount[index] as number) > 1,
        };
      },
    };
  }
}

/** Rows for a flat list of log indexes (a graph selection): every row a thread start at depth 0. */
export function flatRows(indexes: Int32Array, length: number): RowSource {
  return {
    length,
    indexAt: (at) => indexes[at] as number,
    rowAt: (at) => ({ index: indexes[at] as number, depth: 0, descendants: 0, collapsed: false, threadStart: true, toggleable: false }),
  };
}

/** Reverses `list[from..]` in place. */
function reverseFrom(list: number[], from: number): void {
  for (let low = from, high = list.length - 1; low < high; low++, high--) {
    const swap = list[low] as number;
    list[low] = list[high] as number;
    list[high] = swap;
  }
}
