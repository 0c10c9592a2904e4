import dagre from '@dagrejs/dagre';

export interface Point {
  x: number;
  y: number;
}

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 118;

/** Left-to-right dagre layout of the nodes; edges are only hints for ranking. */
export function autoLayout(
  nodeIds: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
): Record<string, Point> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 90, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodeIds);
  for (const id of nodeIds) graph.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) {
    if (edge.source !== edge.target && ids.has(edge.source) && ids.has(edge.target))
      graph.setEdge(edge.source, edge.target);
  }
  dagre.layout(graph);
  const positions: Record<string, Point> = {};
  for (const id of nodeIds) {
    const placed = graph.node(id) as { x: number; y: number } | undefined;
    positions[id] = { x: (placed?.x ?? 0) - NODE_WIDTH / 2, y: (placed?.y ?? 0) - NODE_HEIGHT / 2 };
  }
  return positions;
}

const PREFIX = 'fleetscope.layout.';

/** Positions the user arranged for a fleet, by node id. */
export function loadLayout(fleetName: string): Record<string, Point> {
  try {
    const raw = localStorage.getItem(PREFIX + fleetName);
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const positions: Record<string, Point> = {};
    for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
      const point = value as Partial<Point> | null;
      if (point && typeof point.x === 'number' && typeof point.y === 'number')
        positions[id] = { x: point.x, y: point.y };
    }
    return positions;
  } catch {
    return {};
  }
}

export function saveLayout(fleetName: string, positions: Record<string, Point>): void {
  try {
    localStorage.setItem(PREFIX + fleetName, JSON.stringify(positions));
  } catch {
    // Storage full or disabled: the layout is simply not remembered.
  }
}

export function clearLayout(fleetName: string): void {
  try {
    localStorage.removeItem(PREFIX + fleetName);
  } catch {
    // Nothing to clear.
  }
}
