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

/** Nesting stops here so deep conversations stay readable. */
export const MAX_DEPTH = 6;

/**
 * Orders messages into threads: every reply sits under what it answers (depth first, replies in
 * the order they arrived), messages whose parent is unknown start a thread. A plain chain of
 * replies (each message answered once) stays at one depth; a message answered several times
 * indents its replies, so fan-outs read as branches. Collapsed messages hide their descendants.
 */
export function threadMessages(items: readonly ThreadInput[], collapsed: ReadonlySet<string> = new Set()): ThreadRow[] {
  const count = items.length;
  const indexById = new Map<string, number>();
  for (let index = 0; index < count; index++) indexById.set((items[index] as ThreadInput).id, index);
  // Children as linked lists in typed arrays: first child, next sibling, child count (-1 = none).
  const firstChild = new Int32Array(count).fill(-1);
  const lastChild = new Int32Array(count).fill(-1);
  const nextSibling = new Int32Array(count).fill(-1);
  const childCount = new Int32Array(count);
  const roots: number[] = [];
  for (let index = 0; index < count; index++) {
    const parentId = (items[index] as ThreadInput).parentId;
    const parent = parentId === null ? undefined : indexById.get(parentId);
    if (parent === undefined || parent >= index) {
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
    const parentId = (items[index] as ThreadInput).parentId;
    const parent = parentId === null ? undefined : indexById.get(parentId);
    if (parent !== undefined && parent < index) descendants[parent] = (descendants[parent] as number) + 1 + (descendants[index] as number);
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
    rows.push({ index, depth, descendants: descendants[index] as number, collapsed: isCollapsed, threadStart: start, toggleable: start || (childCount[index] as number) > 1 });
    if (isCollapsed || firstChild[index] === -1) continue;
    const childDepth = (childCount[index] as number) > 1 ? Math.min(MAX_DEPTH, depth + 1) : depth;
    const kids: number[] = [];
    for (let child = firstChild[index] as number; child !== -1; child = nextSibling[child] as number) kids.push(child);
    for (let k = kids.length - 1; k >= 0; k--) {
      stackIndex.push(kids[k] as number);
      stackDepth.push(childDepth);
    }
  }
  return rows;
}
