import type { Point } from './shapes';

export type { Point } from './shapes';

/**
 * Arrangements the user dragged, per fleet. The version in the key leaves behind arrangements
 * saved for the earlier boxes (a user and an "Everyone" node, other sizes), which no longer fit.
 */
const PREFIX = 'fleetscope.graph-layout.v2.';

/** Positions the user arranged for a fleet, by node id (a group's members relative to it). */
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

const MINIMAP_KEY = 'fleetscope.graph.minimap';
const EDGE_COSTS_KEY = 'fleetscope.graph.edge-costs';

/** A graph toggle the user set, kept across views and launches; `fallback` until set. */
function readChoice(key: string, fallback: boolean): boolean {
  try {
    const stored = localStorage.getItem(key);
    return stored === null ? fallback : stored === 'on';
  } catch {
    return fallback;
  }
}

function writeChoice(key: string, wanted: boolean): void {
  try {
    localStorage.setItem(key, wanted ? 'on' : 'off');
  } catch {
    // Storage disabled: the choice lasts for this view only.
  }
}

/** Whether the user wants the graph's minimap (shown unless turned off). */
export const readMinimapChoice = (): boolean => readChoice(MINIMAP_KEY, true);
export const writeMinimapChoice = (wanted: boolean): void => writeChoice(MINIMAP_KEY, wanted);

/** Whether edge labels show what the turns they triggered cost (off until turned on). */
export const readEdgeCostChoice = (): boolean => readChoice(EDGE_COSTS_KEY, false);
export const writeEdgeCostChoice = (wanted: boolean): void => writeChoice(EDGE_COSTS_KEY, wanted);
