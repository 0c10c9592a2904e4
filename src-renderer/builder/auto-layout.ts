import dagre from '@dagrejs/dagre';
import type { Position } from './canvas-types';

const WIDTH = 200;
const HEIGHT = 80;

/** Left-to-right layered positions (top-left corners) for nodes, ranked along the edges. */
export function layeredPositions(
  ids: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
): Record<string, Position> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 50, ranksep: 90 });
  graph.setDefaultEdgeLabel(() => ({}));
  const known = new Set(ids);
  for (const id of ids) graph.setNode(id, { width: WIDTH, height: HEIGHT });
  for (const edge of edges) {
    if (edge.source !== edge.target && known.has(edge.source) && known.has(edge.target))
      graph.setEdge(edge.source, edge.target);
  }
  dagre.layout(graph);
  const positions: Record<string, Position> = {};
  for (const id of ids) {
    const node = graph.node(id) as { x: number; y: number } | undefined;
    positions[id] = { x: Math.round((node?.x ?? 0) - WIDTH / 2), y: Math.round((node?.y ?? 0) - HEIGHT / 2) };
  }
  return positions;
}
