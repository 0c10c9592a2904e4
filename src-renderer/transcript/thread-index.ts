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
 * Threading of a whole message log, computed once per log size (not per seek). Rows are in log
 * order and children always come after their parent, so the rows visible at a playhead (the
 * first `count` messages) are a prefix: `cut` recomputes depth, descendants and child counts for
 * it in a few linear passes. Gives exactly what `threadMessages(items, collapsed, { count,
 * parentIndex })` gives.
 */
export class ThreadIndex {
  /** Items threaded (the log size when built). */
  readonly size: number;
  /** parents[i]: index of item i's parent (always < i), or -1 for a thread start. */
  private readonly parents: Int32Array;
  /**
   * Working arrays of `cut`, two sets used in turn: a seek on 100k messages would otherwise
   * allocate ~2 MB per cut, and the young-generation GCs that follow cost more than the cut.
   * Alternating keeps the previous cut valid while the view still holds it.
   */
  private readonly buffers: CutBuffers[] = [];
  private turn = 0;

  constructor(parentIndex: ArrayLike<number>, size: number) {
    this.size = size;
    const parents = new Int32Array(size);
    for (let index = 0; index < size; index++) {
      const parent = parentIndex[index] ?? -1;
      parents[index] = parent >= 0 && parent < index ? parent : -1;
    }
    this.parents = parents;
  }

  /**
   * The rows when only the first `count` items have appeared. `isCollapsed(index)` hides the
   * replies below that item (asked only when `anyCollapsed`). The result shares working arrays
   * with the cut before last: it stays valid until two more cuts are made.
   */
  cut(count: number, isCollapsed: (index: number) => boolean, anyCollapsed: boolean): RowSource {
    const n = Math.max(0, Math.min(count, this.size));
    const { parents } = this;
    this.turn = 1 - this.turn;
    const buffers = (this.buffers[this.turn] ??= newBuffers(this.size));
    const childCount = buffers.childCount.fill(0, 0, n);
    for (let index = 0; index < n; index++) {
      const parent = parents[index] as number;
      if (parent >= 0) childCount[parent] = (childCount[parent] as number) + 1;
    }
    const descendants = buffers.descendants.fill(0, 0, n);
    for (let index = n - 1; index >= 0; index--) {
      const parent = parents[index] as number;
      if (parent >= 0)
        descendants[parent] = (descendants[parent] as number) + 1 + (descendants[index] as number);
    }
    const depth = buffers.depth.fill(0, 0, n);
    const collapsed = anyCollapsed ? buffers.collapsed.fill(0, 0, n) : null;
    // 1 where a collapsed message above hides the item.
    const hidden = anyCollapsed ? buffers.hidden.fill(0, 0, n) : null;
    const rows = buffers.rows;
    let length = 0;
    for (let index = 0; index < n; index++) {
      const parent = parents[index] as number;
      if (parent >= 0) {
        const parentDepth = depth[parent] as number;
        depth[index] =
          (childCount[parent] as number) > 1 ? Math.min(MAX_DEPTH, parentDepth + 1) : parentDepth;
        if (hidden && collapsed && (hidden[parent] === 1 || collapsed[parent] === 1)) {
          hidden[index] = 1;
          continue;
        }
      }
      rows[length++] = index;
      if (collapsed && isCollapsed(index)) collapsed[index] = 1;
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

/** The per-cut arrays, sized for the whole log (a cut uses the first `count` entries). */
interface CutBuffers {
  childCount: Int32Array;
  descendants: Int32Array;
  depth: Int32Array;
  collapsed: Uint8Array;
  hidden: Uint8Array;
  rows: Int32Array;
}

function newBuffers(size: number): CutBuffers {
  return {
    childCount: new Int32Array(size),
    descendants: new Int32Array(size),
    depth: new Int32Array(size),
    collapsed: new Uint8Array(size),
    hidden: new Uint8Array(size),
    rows: new Int32Array(size),
  };
}

/** Rows for a flat list of log indexes (a graph selection): every row a thread start at depth 0. */
export function flatRows(indexes: Int32Array, length: number): RowSource {
  return {
    length,
    indexAt: (at) => indexes[at] as number,
    rowAt: (at) => ({
      index: indexes[at] as number,
      depth: 0,
      descendants: 0,
      collapsed: false,
      threadStart: true,
      toggleable: false,
    }),
  };
}
