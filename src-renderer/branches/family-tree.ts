import type { Family, FamilyNode, SessionListItem } from '@shared/contract';

/** One line of a family tree as drawn: a session, how deep it sits and what its fork changed. */
export interface FamilyRow {
  node: FamilyNode;
  depth: number;
  /** The session the tree was opened from. */
  current: boolean;
  /** `original` for the root; `at #3 · message 3 edited` for a fork. */
  label: string;
}

/** Where a fork starts and what it changed, in a few words. */
export function forkLabel(node: FamilyNode): string {
  if (!node.forkOf) return 'original';
  const what = node.label.trim() || 'same as parent';
  return `at #${node.forkOf.atMessage} · ${what}`;
}

/**
 * The rows of a family tree in the order the backend lists them (root first, each fork after its
 * parent). A node whose parent is missing (the answer was truncated) is drawn under the root.
 */
export function familyRows(family: Family, currentId: string = family.sessionId): FamilyRow[] {
  const known = new Set(family.nodes.map((node) => node.sessionId));
  return family.nodes.map((node) => ({
    node,
    depth: node.parentId === null ? 0 : known.has(node.parentId) ? node.depth : 1,
    current: node.sessionId === currentId,
    label: forkLabel(node),
  }));
}

/** The path from the root to `id` (ids, root first): the branch a session sits on. */
export function lineageOf(family: Family, id: string): string[] {
  const byId = new Map(family.nodes.map((node) => [node.sessionId, node]));
  const path: string[] = [];
  let cursor = byId.get(id);
  while (cursor && !path.includes(cursor.sessionId)) {
    path.unshift(cursor.sessionId);
    cursor = cursor.parentId ? byId.get(cursor.parentId) : undefined;
  }
  return path;
}

/** Sessions of one family as the list shows them: one lead row, the family's size and its members on this page. */
export interface ListFamily {
  rootId: string;
  /** Sessions in the whole family (the root included); 1 for a session never forked. */
  size: number;
  /** The row shown for the family: the root when it is on this page, else its newest member here. */
  lead: SessionListItem;
  /** Members on this page, in list order. */
  members: SessionListItem[];
}

/**
 * Groups a page of the session list into families, in list order (a family sits where its newest
 * member on the page would). Items without family counts stand alone.
 */
export function groupFamilies(items: readonly SessionListItem[]): ListFamily[] {
  const groups = new Map<string, ListFamily>();
  for (const item of items) {
    const rootId = item.family?.rootId ?? item.id;
    const group = groups.get(rootId);
    if (!group) {
      groups.set(rootId, { rootId, size: item.family?.size ?? 1, lead: item, members: [item] });
      continue;
    }
    group.members.push(item);
    group.size = Math.max(group.size, item.family?.size ?? 1, group.members.length);
    if (item.id === rootId) group.lead = item;
  }
  return [...groups.values()];
}
