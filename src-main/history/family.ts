import type { FamilyNode } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import { FAMILY_COLUMNS, parseForkChanges, toSessionListItem, type SessionRow } from './rows';

export interface FamilyTree {
  rootId: string;
  sessionId: string;
  /** Root first, then depth-first in creation order: each fork after its parent. */
  nodes: FamilyNode[];
  truncated: boolean;
}

/** Sessions one family answer lists at most. */
export const DEFAULT_FAMILY_LIMIT = 2000;

/** A fork's label: what it changed, or that it re-runs from its fork point unchanged. */
export function forkLabel(row: Pick<SessionRow, 'parent_session_id' | 'fork_changes'>): string {
  if (row.parent_session_id === null) return '';
  const changes = parseForkChanges(row.fork_changes);
  return changes.length === 0 ? 'same as parent' : changes.map((change) => change.summary).join('; ');
}

/** The family of a session: its root and every session forked from it, at any depth. */
export function familyOf(db: SqliteDatabase, sessionId: string, limit = DEFAULT_FAMILY_LIMIT): FamilyTree {
  const own = db.prepare('SELECT root_session_id FROM sessions WHERE id = ?').get(sessionId) as
    { root_session_id: string | null } | undefined;
  if (!own) throw new HistoryError('not-found', `No session with id "${sessionId}".`);
  const rootId = own.root_session_id ?? sessionId;
  const rows = db
    .prepare(
      `SELECT *, ${FAMILY_COLUMNS} FROM sessions WHERE id = ? OR root_session_id = ?
       ORDER BY created_at, id LIMIT ?`,
    )
    .all(rootId, rootId, limit + 1) as SessionRow[];
  const truncated = rows.length > limit;
  const kept = rows.slice(0, limit);
  const children = new Map<string | null, SessionRow[]>();
  for (const row of kept) {
    const parent = row.id === rootId ? null : row.parent_session_id;
    const list = children.get(parent) ?? [];
    list.push(row);
    children.set(parent, list);
  }
  const nodes: FamilyNode[] = [];
  const stack: Array<{ row: SessionRow; depth: number }> = (children.get(null) ?? []).map((row) => ({
    row,
    depth: 0,
  }));
  while (stack.length > 0) {
    const { row, depth } = stack.pop() as { row: SessionRow; depth: number };
    const item = toSessionListItem(row);
    nodes.push({
      sessionId: row.id,
      parentId: row.id === rootId ? null : row.parent_session_id,
      forkOf: item.forkOf ?? null,
      title: row.title,
      status: item.status,
      stopReason: row.stop_reason,
      messageCount: row.message_count,
      createdAt: row.created_at,
      depth,
      forks: row.fork_count ?? 0,
      label: forkLabel(row),
      changes: parseForkChanges(row.fork_changes),
    });
    const below = children.get(row.id) ?? [];
    for (let index = below.length - 1; index >= 0; index--)
      stack.push({ row: below[index] as SessionRow, depth: depth + 1 });
  }
  return { rootId, sessionId, nodes, truncated };
}
