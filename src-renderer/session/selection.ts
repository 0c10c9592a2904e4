import type { EdgeKind } from './stats';

/** What the user picked on the graph; the transcript narrows to it. */
export type GraphSelection =
  { type: 'agent'; id: string } | { type: 'edge'; source: string; target: string; kind: EdgeKind } | null;

/** Whether a message from `from` to `to` belongs to the selection. */
export function matchesSelection(selection: GraphSelection, from: string, to: string): boolean {
  if (!selection) return true;
  if (selection.type === 'agent') return from === selection.id || to === selection.id;
  return from === selection.source && to === selection.target;
}
