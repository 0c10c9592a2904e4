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
}

/**
 * Left-to-right layered (dagre) positions, as top-left corners, for `ids`. Edges only rank the
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
    rankdir: 'LR',
    nodesep: options.nodeSeparation,
    ranksep: options.rankSeparation,
    marginx: margin,
    marginy: margin,
  });
  graph.setDefaultEdgeLabel(() => ({}));
  const known = new Set(ids);
  for (const id of ids) graph.setNode(id, { width: nodeWidth, height: nodeHeight });
  for (const edge of edges) {
    if (edge.source !== edge.target && known.has(edge.source) && known.has(edge.target))
      graph.setEdge(edge.source, edge.target);
  }
  dagre.layout(graph);
  const place = options.round ? Math.round : (value: number) => value;
  const positions: Record<string, Point> = {};
  for (const id of ids) {
    const node = graph.node(id);
    positions[id] = {
      x: place((node.x ?? 0) - nodeWidth / 2),
      y: place((node.y ?? 0) - nodeHeight / 2),
    };
  }
  return positions;
}
