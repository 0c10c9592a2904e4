import { describe, expect, it } from 'vitest';
import { broadcastRay, segmentCrosses } from '../../../src-renderer/graph/broadcast-route';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const box = (x: number, y: number, width = 200, height = 100): Box => ({ x, y, width, height });

/** Points along an `M … L …` or `M … Q …` path, as the browser would draw it. */
function pointsOf(path: string, steps = 400): Array<{ x: number; y: number }> {
  const numbers = (path.match(/-?\d*\.?\d+/g) ?? []).map(Number);
  const [sx, sy] = numbers as [number, number];
  const curve = path.includes('Q');
  const [cx, cy, ex, ey] = (curve ? numbers.slice(2) : [sx, sy, ...numbers.slice(2)]) as [
    number,
    number,
    number,
    number,
  ];
  return Array.from({ length: steps + 1 }, (_, step) => {
    const t = step / steps;
    const u = 1 - t;
    return {
      x: u * u * sx + 2 * u * t * cx + t * t * ex,
      y: u * u * sy + 2 * u * t * cy + t * t * ey,
    };
  });
}

/** Points of the path strictly inside the box. */
const inside = (path: string, target: Box) =>
  pointsOf(path).filter(
    (point) =>
      point.x > target.x + 0.5 &&
      point.x < target.x + target.width - 0.5 &&
      point.y > target.y + 0.5 &&
      point.y < target.y + target.height - 0.5,
  );

describe('broadcast rays', () => {
  it('run straight from border to border when nothing is in between', () => {
    const path = broadcastRay(box(0, 0), box(400, 0));
    expect(path).toBe('M 203 50 L 397 50');
  });

  it('bow around a card in their way, clear of it, leaving and entering at the borders', () => {
    // The selector pattern: four agents at the corners, the hub in the middle.
    const planner = box(0, 0);
    const critic = box(400, 300);
    const hub = box(250, 170, 100, 60);
    const straight = 'M 0 0 L 1 1';
    const path = broadcastRay(planner, critic, [hub, box(400, 0), box(0, 300)]) ?? straight;
    expect(path).toMatch(/^M [\d.]+ [\d.]+ Q /);
    for (const card of [planner, critic, hub, box(400, 0), box(0, 300)])
      expect(inside(path, card)).toEqual([]);
    const points = pointsOf(path);
    const first = points[0]!;
    const last = points[points.length - 1]!;
    // On (3 px outside) the border of each end.
    expect(Math.min(Math.abs(first.x - 203), Math.abs(first.y - 103))).toBeLessThan(0.2);
    expect(Math.min(Math.abs(last.x - 397), Math.abs(last.y - 297))).toBeLessThan(0.2);
  });

  it('stays straight beneath a card that leaves no way round, still from border to border', () => {
    const wall = box(250, -2000, 50, 4000);
    const path = broadcastRay(box(0, 0), box(400, 0), [wall]);
    expect(path).toBe('M 203 50 L 397 50');
  });

  it('runs from a team box to one of its members without crossing the member', () => {
    const team = box(0, 0, 500, 300);
    const member = box(20, 80, 200, 120);
    const path = broadcastRay(team, member) ?? '';
    expect(path).toBe('M 0 140 L 17 140');
    expect(inside(path, member)).toEqual([]);
  });

  it('never enters the sender or the receiver, whatever the layout', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round += 1) {
      const cards: Box[] = [];
      while (cards.length < 6) {
        const card = box(random() * 900, random() * 700, 80 + random() * 160, 50 + random() * 80);
        if (!cards.some((other) => overlap(card, other))) cards.push(card);
      }
      const [from, to, ...others] = cards as [Box, Box, ...Box[]];
      const path = broadcastRay(from, to, others);
      expect(path).not.toBeNull();
      expect(inside(path ?? '', from)).toEqual([]);
      expect(inside(path ?? '', to)).toEqual([]);
    }
  });

  it('detects a segment through a box and one that passes it', () => {
    const card = box(100, 100, 100, 100);
    expect(segmentCrosses({ x: 0, y: 150 }, { x: 300, y: 150 }, card, 0)).toBe(true);
    expect(segmentCrosses({ x: 0, y: 90 }, { x: 300, y: 90 }, card, 0)).toBe(false);
    expect(segmentCrosses({ x: 0, y: 95 }, { x: 300, y: 95 }, card, 8)).toBe(true);
    expect(segmentCrosses({ x: 0, y: 0 }, { x: 90, y: 90 }, card, 0)).toBe(false);
  });
});

function overlap(a: Box, b: Box): boolean {
  return (
    a.x < b.x + b.width + 10 &&
    b.x < a.x + a.width + 10 &&
    a.y < b.y + b.height + 10 &&
    b.y < a.y + a.height + 10
  );
}
