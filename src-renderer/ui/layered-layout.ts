import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';

export interface Point {
  x: number;
  y: number;
}

/** The node box and spacing of a layered layout, in pixels. */
export interface LayeredLayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  /** Space between nodes in one rank (column). */
  nodeSeparation: number;
  /** Space between ranks. */
  rankSeparation: number;
  /** Space left around the whole drawing (0 when omitted). */
  margin?: number;
  /** Rounds positions to whole pixels (for positions that are saved). */
  round?: boolean;
  /** Measured sizes by id; ids without one use nodeWidth x nodeHeight. */
  sizes?: Record<string, { width: number; height: number }>;
  /** Left to right (default) or top to bottom. */
  direction?: 'LR' | 'TB';
}

/**
 * Layered (dagre) positions, left to right unless told otherwise, as top-left corners, for `ids`. Edges only rank the
 * nodes: self-loops and edges to unknown ids are left out. Every id gets a position.
 */
export function layeredLayout(
  ids: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
  options: LayeredLayoutOptions,
): Record<string, Point> {
  const { nodeWidth, nodeHeight, margin = 0 } = options;
  const graph = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>();
  graph.setGraph({
    rankdir: options.direction ?? 'LR',
    nodesep: options.nodeSeparation,
    ranksep: options.rankSeparation,
    marginx: margin,
    marginy: margin,
  });
  graph.setDefaultEdgeLabel(() => ({}));
  const known = new Set(ids);
  const sizeOf = (id: string) => options.sizes?.[id] ?? { width: nodeWidth, height: nodeHeight };
  for (const id of ids) graph.setNode(id, { ...sizeOf(id) });
  for (const edge of edges) {
    if (edge.source !== edge.target && known.has(edge.source) && known.has(edge.target))
      graph.setEdge(edge.source, edge.target);
  }
  dagre.layout(graph);
  const place = options.round ? Math.round : (value: number) => value;
  const positions: Record<string, Point> = {};
  for (const id of ids) {
    const node = graph.node(id);
    const size = sizeOf(id);
    positions[id] = {
      x: place((node.x ?? 0) - size.width / 2),
      y: place((node.y ?? 0) - size.height / 2),
    };
  }
  return positions;
}
