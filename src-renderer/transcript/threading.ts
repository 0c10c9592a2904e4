/** What threading needs to know of a message. */
export interface ThreadInput {
  id: string;
  parentId: string | null;
  threadId: string;
}

/** One visible transcript row: which input item, how deep, and what hangs below it. */
export interface ThreadRow {
  /** Index into the input list. */
  index: number;
  depth: number;
  /** Messages nested below this one (all descendants), shown or collapsed. */
  descendants: number;
  collapsed: boolean;
  /** First message of its thread (parent absent). */
  threadStart: boolean;
  /** Worth a collapse toggle: a thread start, or a message answered more than once. */
  toggleable: boolean;
}

export interface ThreadOptions {
  /** Thread only the first `count` items (the messages visible at a playhead); default all. */
  count?: number;
  /**
   * Index of each item's parent among the items, or -1 (as MessageLog keeps it). Saves building
   * an id map on every call, which matters when a seek rethreads 100k messages.
   */
  parentIndex?: ArrayLike<number>;
}

/** Nesting stops here so deep conversations stay readable. */
export const MAX_DEPTH = 6;

/**
 * The transcript's rows: every message in log order (the order it first appeared, as the lanes
 * and the graph show it), indented by thread. Messages whose parent is unknown start a thread. A
 * plain chain of replies (each message answered once) stays at one depth; a message answered
 * several times indents its replies, so fan-outs read as branches. Collapsed messages hide their
 * descendants.
 */
export function threadMessages(
  items: readonly ThreadInput[],
  collapsed: ReadonlySet<string> = new Set(),
  options: ThreadOptions = {},
): ThreadRow[] {
  const count = Math.min(options.count ?? items.length, items.length);
  // parents[i]: the parent's index when it came earlier, else -1 (a thread start).
  const parents = new Int32Array(count).fill(-1);
  if (options.parentIndex) {
    for (let index = 0; index < count; index++) {
      const parent = options.parentIndex[index] ?? -1;
      if (parent < index) parents[index] = parent;
    }
  } else {
    const indexById = new Map<string, number>();
    for (let index = 0; index < count; index++) {
      const parentId = (items[index] as ThreadInput).parentId;
      const parent = parentId === null ? undefined : indexById.get(parentId);
      if (parent !== undefined) parents[index] = parent;
      // The first item with an id wins, as a later duplicate cannot be a parent of earlier ones.
      if (!indexById.has((items[index] as ThreadInput).id))
        indexById.set((items[index] as ThreadInput).id, index);
    }
  }
  const childCount = new Int32Array(count);
  for (let index = 0; index < count; index++) {
    const parent = parents[index] as number;
    if (parent >= 0) childCount[parent] = (childCount[parent] as number) + 1;
  }
  // Children always come after their parent, so one backward pass sums subtree sizes.
  const descendants = new Int32Array(count);
  for (let index = count - 1; index >= 0; index--) {
    const parent = parents[index] as number;
    if (parent >= 0)
      descendants[parent] = (descendants[parent] as number) + 1 + (descendants[index] as number);
  }

  const rows: ThreadRow[] = [];
  // Log order: a parent always comes before its replies, so one forward pass knows its depth
  // and whether a collapsed message above hides it.
  const depths = new Int32Array(count);
  const hidden = new Uint8Array(count);
  const folded = new Uint8Array(count);
  for (let index = 0; index < count; index++) {
    const parent = parents[index] as number;
    if (parent >= 0) {
      const parentDepth = depths[parent] as number;
      depths[index] = (childCount[parent] as number) > 1 ? Math.min(MAX_DEPTH, parentDepth + 1) : parentDepth;
      if (hidden[parent] === 1 || folded[parent] === 1) {
        hidden[index] = 1;
        continue;
      }
    }
    const isCollapsed = collapsed.size > 0 && collapsed.has((items[index] as ThreadInput).id);
    if (isCollapsed) folded[index] = 1;
    const start = parent < 0;
    rows.push({
      index,
      depth: depths[index] as number,
      descendants: descendants[index] as number,
      collapsed: isCollapsed,
      threadStart: start,
      toggleable: start || (childCount[index] as number) > 1,
    });
  }
  return rows;
}
