import { borderPoint, type EdgeBox } from './edge-geometry';
import { drawablePath, measured, type PulseBox } from './pulse-path';

/**
 * The path a broadcast ray takes from its sender to one receiver, in flow coordinates. Like a
 * message edge it leaves and enters at the boxes' borders (where the line between the centres, or
 * toward the curve's control point, crosses them); where the straight line would cross another
 * card it bows around it, trying gentle curves first, to either side. With no clear route at all
 * (a card boxed in on every side) it stays straight: the rays are drawn beneath the cards. Pure.
 */

interface Point {
  x: number;
  y: number;
}

/** Space kept between a ray and a card it passes. */
const CLEARANCE = 8;
/** How far the control point moves off the straight line, as a share of the distance between the centres. */
const BENDS = [0, 0.3, -0.3, 0.5, -0.5, 0.75, -0.75, 1, -1, 1.4, -1.4];
/** Straight segments a curve is checked as. */
const SEGMENTS = 40;

const centre = (box: EdgeBox): Point => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
const round = (value: number) => Math.round(value * 10) / 10;

/** True when `outer` holds all of `inner` (a team's group box and one of its members). */
function holds(outer: EdgeBox, inner: EdgeBox): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

/** Whether the segment a–b passes through the box grown by `margin` (Liang–Barsky clipping). */
export function segmentCrosses(a: Point, b: Point, box: EdgeBox, margin: number): boolean {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let low = 0;
  let high = 1;
  const sides: Array<[number, number]> = [
    [-dx, a.x - (box.x - margin)],
    [dx, box.x + box.width + margin - a.x],
    [-dy, a.y - (box.y - margin)],
    [dy, box.y + box.height + margin - a.y],
  ];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) low = Math.max(low, t);
    else high = Math.min(high, t);
    if (low >= high) return false;
  }
  return true;
}

interface Route {
  start: Point;
  control: Point;
  end: Point;
}

function routeWithBend(from: EdgeBox, to: EdgeBox, bend: number): Route {
  const a = centre(from);
  const b = centre(to);
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const control = {
    x: (a.x + b.x) / 2 + (dy / length) * bend * length,
    y: (a.y + b.y) / 2 - (dx / length) * bend * length,
  };
  return {
    start: borderPoint(from, bend === 0 ? b : control),
    control,
    end: borderPoint(to, bend === 0 ? a : control),
  };
}

/** The route as straight segments: one for a straight ray, SEGMENTS for a curve. */
function pointsOf(route: Route, bend: number): Point[] {
  if (bend === 0) return [route.start, route.end];
  const points: Point[] = [];
  for (let step = 0; step <= SEGMENTS; step += 1) {
    const t = step / SEGMENTS;
    const u = 1 - t;
    points.push({
      x: u * u * route.start.x + 2 * u * t * route.control.x + t * t * route.end.x,
      y: u * u * route.start.y + 2 * u * t * route.control.y + t * t * route.end.y,
    });
  }
  return points;
}

/** Whether a box grown by `margin` meets the box round the route's three points (which holds the curve). */
function near(route: Route, box: EdgeBox, margin: number): boolean {
  const xs = [route.start.x, route.control.x, route.end.x];
  const ys = [route.start.y, route.control.y, route.end.y];
  return (
    box.x - margin <= Math.max(...xs) &&
    box.x + box.width + margin >= Math.min(...xs) &&
    box.y - margin <= Math.max(...ys) &&
    box.y + box.height + margin >= Math.min(...ys)
  );
}

/** Clear of the obstacles by `margin`, and of the sender's and receiver's own insides. */
function clear(
  route: Route,
  bend: number,
  ends: EdgeBox[],
  obstacles: readonly EdgeBox[],
  margin: number,
): boolean {
  const nearby = obstacles.filter((box) => near(route, box, margin));
  const points = pointsOf(route, bend);
  for (let index = 1; index < points.length; index += 1) {
    const a = points[index - 1]!;
    const b = points[index]!;
    if (nearby.some((box) => segmentCrosses(a, b, box, margin))) return false;
    if (ends.some((box) => segmentCrosses(a, b, box, -0.5))) return false;
  }
  return true;
}

function pathOf(route: Route, bend: number): string {
  const { start, control, end } = route;
  return bend === 0
    ? `M ${round(start.x)} ${round(start.y)} L ${round(end.x)} ${round(end.y)}`
    : `M ${round(start.x)} ${round(start.y)} Q ${round(control.x)} ${round(control.y)} ${round(end.x)} ${round(end.y)}`;
}

/**
 * A receiver inside its sender's box (a team broadcasting to its own members): a short ray from
 * the side of the team's box nearest the member, square to that side, to the member's border.
 */
function rayFromEnclosing(outer: EdgeBox, inner: EdgeBox): string {
  const mid = centre(inner);
  const gaps = [
    { gap: inner.x - outer.x, start: { x: outer.x, y: mid.y }, end: { x: inner.x - 3, y: mid.y } },
    {
      gap: outer.x + outer.width - (inner.x + inner.width),
      start: { x: outer.x + outer.width, y: mid.y },
      end: { x: inner.x + inner.width + 3, y: mid.y },
    },
    {
      gap: outer.y + outer.height - (inner.y + inner.height),
      start: { x: mid.x, y: outer.y + outer.height },
      end: { x: mid.x, y: inner.y + inner.height + 3 },
    },
  ];
  const nearest = gaps.reduce((best, side) => (side.gap < best.gap ? side : best));
  const { start, end } = nearest;
  return `M ${round(start.x)} ${round(start.y)} L ${round(end.x)} ${round(end.y)}`;
}

/**
 * The ray from `from` to `to` around `obstacles` (every other card: not the sender, the receiver
 * or a team box holding either), or null until both ends are measured. Obstacles not measured yet
 * are ignored.
 */
export function broadcastRay(
  from: PulseBox | null | undefined,
  to: PulseBox | null | undefined,
  obstacles: readonly (PulseBox | null | undefined)[] = [],
): string | null {
  if (!measured(from) || !measured(to)) return null;
  if (holds(from, to)) {
    const path = rayFromEnclosing(from, to);
    return drawablePath(path) ? path : null;
  }
  const boxes = obstacles.filter(measured);
  const ends = [from, to];
  for (const margin of [CLEARANCE, 0])
    for (const bend of BENDS) {
      const route = routeWithBend(from, to, bend);
      if (!clear(route, bend, ends, boxes, margin)) continue;
      const path = pathOf(route, bend);
      return drawablePath(path) ? path : null;
    }
  const path = pathOf(routeWithBend(from, to, 0), 0);
  return drawablePath(path) ? path : null;
}
