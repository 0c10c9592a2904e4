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
 * Orders messages into threads: every reply sits under what it answers (depth first, replies in
 * the order they arrived), messages whose parent is unknown start a thread. A plain chain of
 * replies (each message answered once) stays at one depth; a message answered several times
 * indents its replies, so fan-outs read as branches. Collapsed messages hide their descendants.
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
  // Children as linked lists in typed arrays: first child, next sibling, child count (-1 = none).
  const firstChild = new Int32Array(count).fill(-1);
  const lastChild = new Int32Array(count).fill(-1);
  const nextSibling = new Int32Array(count).fill(-1);
  const childCount = new Int32Array(count);
  const roots: number[] = [];
  for (let index = 0; index < count; index++) {
    const parent = parents[index] as number;
    if (parent < 0) {
      roots.push(index);
      continue;
    }
    if (firstChild[parent] === -1) firstChild[parent] = index;
    else nextSibling[lastChild[parent] as number] = index;
    lastChild[parent] = index;
    childCount[parent] = (childCount[parent] as number) + 1;
  }
  // Children always come after their parent, so one backward pass sums subtree sizes.
  const descendants = new Int32Array(count);
  for (let index = count - 1; index >= 0; index--) {
    const parent = parents[index] as number;
    if (parent >= 0)
      descendants[parent] = (descendants[parent] as number) + 1 + (descendants[index] as number);
  }

  const rows: ThreadRow[] = [];
  // Iterative depth-first walk: long chains must not overflow the call stack.
  const stackIndex: number[] = [];
  const stackDepth: number[] = [];
  for (let r = roots.length - 1; r >= 0; r--) {
    stackIndex.push(roots[r] as number);
    stackDepth.push(-1);
  }
  while (stackIndex.length > 0) {
    const index = stackIndex.pop() as number;
    const encoded = stackDepth.pop() as number;
    // Roots are pushed with a negative depth so the walk can tell thread starts apart.
    const start = encoded < 0;
    const depth = start ? -1 - encoded : encoded;
    const isCollapsed = collapsed.size > 0 && collapsed.has((items[index] as ThreadInput).id);
    rows.push({
      index,
      depth,
      descendants: descendants[index] as number,
      collapsed: isCollapsed,
      threadStart: start,
      toggleable: start || (childCount[index] as number) > 1,
    });
    if (isCollapsed || firstChild[index] === -1) continue;
    const childDepth = (childCount[index] as number) > 1 ? Math.min(MAX_DEPTH, depth + 1) : depth;
    // Children go on the stack last first, so the first is walked first.
    const mark = stackIndex.length;
    for (let child = firstChild[index] as number; child !== -1; child = nextSibling[child] as number) {
      stackIndex.push(child);
      stackDepth.push(childDepth);
    }
    reverseFrom(stackIndex, mark);
  }
  return rows;
}

/** Reverses `list[from..]` in place. */
function reverseFrom(list: number[], from: number): void {
  for (let low = from, high = list.length - 1; low < high; low++, high--) {
    const swap = list[low] as number;
    list[low] = list[high] as number;
    list[high] = swap;
  }
}
