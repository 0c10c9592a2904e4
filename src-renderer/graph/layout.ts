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

/** Whether the user wants the graph's minimap (shown unless turned off). */
export function readMinimapChoice(): boolean {
  try {
    return localStorage.getItem(MINIMAP_KEY) !== 'off';
  } catch {
    return true;
  }
}

export function writeMinimapChoice(wanted: boolean): void {
  try {
    localStorage.setItem(MINIMAP_KEY, wanted ? 'on' : 'off');
  } catch {
    // Storage disabled: the choice lasts for this view only.
  }
}
