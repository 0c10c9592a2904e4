import type { CompareAgent, CompareEdge } from '@shared/contract';
import { BROADCAST } from '@shared/domain';
import { layeredLayout } from '../ui/layered-layout';

export const GRAPH_NODE = { width: 116, height: 42 } as const;
const MARGIN = 16;

export interface GraphNodeBox {
  id: string;
  x: number;
  y: number;
}

export interface GraphEdgeLine {
  key: string;
  edge: CompareEdge;
  /** SVG path from the source box's border to the target's. */
  path: string;
  /** Where the count label sits. */
  labelX: number;
  labelY: number;
}

/** Both sessions' graphs share one layout, so the same edge sits in the same place in each. */
export interface CompareGraphModel {
  width: number;
  height: number;
  nodes: GraphNodeBox[];
  edges: GraphEdgeLine[];
  /**
   * Messages each agent sent to everyone, by agent: drawn on its card, as the session view does,
   * rather than as edges to an "everyone" box every line would run through.
   */
  broadcasts: Map<string, CompareEdge>;
}

/** Where the segment from the centre of a box towards (dx, dy) leaves the box. */
function borderPoint(cx: number, cy: number, dx: number, dy: number): { x: number; y: number } {
  const halfW = GRAPH_NODE.width / 2;
  const halfH = GRAPH_NODE.height / 2;
  if (dx === 0 && dy === 0) return { x: cx, y: cy };
  const scale = Math.min(
    dx === 0 ? Infinity : halfW / Math.abs(dx),
    dy === 0 ? Infinity : halfH / Math.abs(dy),
  );
  return { x: cx + dx * scale, y: cy + dy * scale };
}

function loopPath(box: GraphNodeBox): { path: string; x: number; y: number } {
  const x = box.x + GRAPH_NODE.width - 20;
  const y = box.y;
  return { path: `M ${x} ${y} c 10 -26, 34 -10, 20 ${GRAPH_NODE.height / 2}`, x: x + 26, y: y - 10 };
}

/**
 * Positions for every agent either session knows and a curve per edge. Two edges between the
 * same pair in opposite directions bend to either side so both stay readable.
 */
export function compareGraph(
  agents: readonly CompareAgent[],
  allEdges: readonly CompareEdge[],
): CompareGraphModel {
  const broadcasts = new Map<string, CompareEdge>();
  for (const edge of allEdges) if (edge.to === BROADCAST) broadcasts.set(edge.from, edge);
  const edges = allEdges.filter((edge) => edge.to !== BROADCAST && edge.from !== BROADCAST);
  const ids = [
    ...new Set([...agents.map((agent) => agent.name), ...edges.flatMap((edge) => [edge.from, edge.to])]),
  ].filter((id) => id !== BROADCAST);
  const positions = layeredLayout(
    ids,
    edges.map((edge) => ({ source: edge.from, target: edge.to })),
    {
      nodeWidth: GRAPH_NODE.width,
      nodeHeight: GRAPH_NODE.height,
      nodeSeparation: 22,
      rankSeparation: 70,
      margin: MARGIN,
    },
  );
  const nodes = ids.map((id) => ({ id, x: positions[id]?.x ?? 0, y: positions[id]?.y ?? 0 }));
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const pairCount = new Map<string, number>();
  const lines: GraphEdgeLine[] = [];
  for (const edge of edges) {
    const source = byId.get(edge.from);
    const target = byId.get(edge.to);
    if (!source || !target) continue;
    const key = `${edge.kind}:${edge.from}->${edge.to}`;
    if (source === target) {
      const loop = loopPath(source);
      lines.push({ key, edge, path: loop.path, labelX: loop.x, labelY: loop.y });
      continue;
    }
    const pairKey = [edge.from, edge.to].sort().join('\n');
    const nth = pairCount.get(pairKey) ?? 0;
    pairCount.set(pairKey, nth + 1);
    const sx = source.x + GRAPH_NODE.width / 2;
    const sy = source.y + GRAPH_NODE.height / 2;
    const tx = target.x + GRAPH_NODE.width / 2;
    const ty = target.y + GRAPH_NODE.height / 2;
    const start = borderPoint(sx, sy, tx - sx, ty - sy);
    const end = borderPoint(tx, ty, sx - tx, sy - ty);
    const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
    // Perpendicular bend: always to the left of the direction of travel, wider for later edges.
    const bend = 14 + nth * 12;
    const nx = -(end.y - start.y) / length;
    const ny = (end.x - start.x) / length;
    const cx = (start.x + end.x) / 2 + nx * bend;
    const cy = (start.y + end.y) / 2 + ny * bend;
    lines.push({
      key,
      edge,
      path: `M ${start.x} ${start.y} Q ${cx} ${cy} ${end.x} ${end.y}`,
      labelX: (start.x + end.x) / 4 + cx / 2,
      labelY: (start.y + end.y) / 4 + cy / 2,
    });
  }
  const width = Math.max(...nodes.map((node) => node.x + GRAPH_NODE.width), 0) + MARGIN;
  const height = Math.max(...nodes.map((node) => node.y + GRAPH_NODE.height), 0) + MARGIN;
  return { width, height, nodes, edges: lines, broadcasts };
}
