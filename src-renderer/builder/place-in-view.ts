import type { Position } from './canvas-types';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Space kept between a new card and the cards around it, in flow pixels. */
const GAP = 30;

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width + GAP &&
  b.x < a.x + a.width + GAP &&
  a.y < b.y + b.height + GAP &&
  b.y < a.y + a.height + GAP;
const inside = (box: Box, view: Box) =>
  box.x >= view.x &&
  box.y >= view.y &&
  box.x + box.width <= view.x + view.width &&
  box.y + box.height <= view.y + view.height;

/**
 * Where a card of `size` goes so the user sees it land: `preferred` when it is in view and free,
 * else the first free spot of the view, row by row; null when the view has no free spot (the
 * caller then places it beside the others and frames the fleet). All in flow coordinates. Pure.
 */
export function placeInView(
  placed: readonly Box[],
  view: Box,
  size: { width: number; height: number },
  preferred: Position,
): Position | null {
  const free = (at: Position) => {
    const box = { ...at, ...size };
    return inside(box, view) && !placed.some((other) => overlaps(box, other));
  };
  if (free(preferred)) return preferred;
  for (let y = view.y + GAP; y + size.height <= view.y + view.height; y += size.height / 2)
    for (let x = view.x + GAP; x + size.width <= view.x + view.width; x += size.width / 2) {
      const at = { x: Math.round(x), y: Math.round(y) };
      if (free(at)) return at;
    }
  return null;
}
