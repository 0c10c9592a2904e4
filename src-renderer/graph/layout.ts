import { layeredLayout, type Point } from '../layout/layered-layout';

export type { Point } from '../layout/layered-layout';

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 118;

/** Left-to-right layout of the session graph's nodes; edges are only hints for ranking. */
export function autoLayout(
  nodeIds: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
): Record<string, Point> {
  return layeredLayout(nodeIds, edges, {
    nodeWidth: NODE_WIDTH,
    nodeHeight: NODE_HEIGHT,
    nodeSeparation: 40,
    rankSeparation: 90,
    margin: 20,
  });
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
