import { describe, expect, it } from 'vitest';
import { borderPoint, floatingEdge } from '../../../src-renderer/graph/edge-geometry';
import {
  allShown,
  fitPadding,
  minimapSize,
  nearlySameSize,
  MARGIN,
  TOOLBAR_HEIGHT,
} from '../../../src-renderer/graph/graph-fit';

const box = (x: number, y: number) => ({ x, y, width: 200, height: 100 });
const point = (text: string) =>
  text.split(' ').map((pair) => pair.split(',').map(Number) as [number, number]);

describe('floating edges', () => {
  it('leave and enter the boxes at their borders, with the arrow tip on the target border', () => {
    const geometry = floatingEdge(box(0, 0), box(400, 0));
    expect(geometry.start.x).toBeGreaterThanOrEqual(200);
    expect(geometry.start.x).toBeLessThan(210);
    expect(geometry.end.x).toBeLessThanOrEqual(400);
    expect(geometry.end.x).toBeGreaterThan(390);
    const [tip] = point(geometry.arrow);
    expect(tip![0]).toBeCloseTo(geometry.end.x, 0);
    expect(geometry.path.startsWith('M ')).toBe(true);
  });

  it('bows the two directions between one pair to opposite sides, so they never overlap', () => {
    const there = floatingEdge(box(0, 0), box(400, 0));
    const back = floatingEdge(box(400, 0), box(0, 0));
    expect(there.labelY).toBeLessThan(50);
    expect(back.labelY).toBeGreaterThan(50);
  });

  it('keeps the count label in the middle of a long edge', () => {
    const plain = floatingEdge(box(0, 0), box(400, 0));
    const labelled = floatingEdge(box(0, 0), box(400, 0), 1.5, { width: 50, height: 19 });
    expect([labelled.labelX, labelled.labelY]).toEqual([plain.labelX, plain.labelY]);
  });

  it('slides the label of a short edge back toward its source, off the arrowhead', () => {
    // A hub's short spoke at an angle: in the middle, a 55 px label would cover the arrow tip.
    const hub = { x: 150, y: 0, width: 100, height: 60 };
    const card = { x: 0, y: 100, width: 200, height: 100 };
    const label = { width: 55, height: 19 };
    const middle = floatingEdge(hub, card, 1.5);
    const covers = (x: number, y: number, at: { x: number; y: number }) =>
      Math.abs(at.x - x) < label.width / 2 && Math.abs(at.y - y) < label.height / 2;
    expect(covers(middle.labelX, middle.labelY, middle.end)).toBe(true);
    const geometry = floatingEdge(hub, card, 1.5, label);
    for (const [x, y] of point(geometry.arrow))
      expect(covers(geometry.labelX, geometry.labelY, { x: x!, y: y! })).toBe(false);
  });

  it('moves a label along its edge off a card that sits where it would go', () => {
    const label = { width: 70, height: 38 };
    const free = floatingEdge(box(0, 0), box(600, 0), 1.5, label);
    // A third card right under the label's usual spot.
    const card = { x: free.labelX - 40, y: free.labelY - 30, width: 80, height: 60 };
    const cards = [box(0, 0), box(600, 0), card];
    const moved = floatingEdge(box(0, 0), box(600, 0), 1.5, label, undefined, [], cards);
    expect(moved.labelOverCard).toBe(false);
    const overlaps = (other: { x: number; y: number; width: number; height: number }) =>
      moved.labelX + label.width / 2 > other.x &&
      moved.labelX - label.width / 2 < other.x + other.width &&
      moved.labelY + label.height / 2 > other.y &&
      moved.labelY - label.height / 2 < other.y + other.height;
    expect(cards.filter(overlaps)).toEqual([]);
    expect(moved.labelX).not.toBe(free.labelX);
  });

  it('bows the edge between two close cards round them, so its label sits off both', () => {
    // Side by side, 100 px apart: a 120 px label cannot sit between them.
    const source = box(0, 0);
    const target = box(300, 0);
    const label = { width: 120, height: 38 };
    const straight = floatingEdge(source, target, 1.5, label);
    expect(straight.labelY + label.height / 2).toBeGreaterThan(0);
    const geometry = floatingEdge(source, target, 1.5, label, undefined, [], [source, target]);
    expect(geometry.labelOverCard).toBe(false);
    // Above both cards (the edge from left to right bows up).
    expect(geometry.labelY + label.height / 2).toBeLessThanOrEqual(0);
  });

  it('says when no spot keeps the label off the cards', () => {
    const source = box(0, 0);
    const target = box(300, 0);
    // Walls of cards just above and below the pair.
    const walls = [
      { x: -400, y: -520, width: 1300, height: 500 },
      { x: -400, y: 120, width: 1300, height: 500 },
    ];
    const label = { width: 120, height: 38 };
    const cards = [source, target, ...walls];
    expect(floatingEdge(source, target, 1.5, label, undefined, [], cards).labelOverCard).toBe(true);
    const small = floatingEdge(source, target, 1.5, { width: 30, height: 23 }, undefined, [], cards);
    expect(small.labelOverCard).toBe(false);
  });

  it('grows the arrowhead with the stroke', () => {
    const size = (width: number) => {
      const [tip, left, right] = point(floatingEdge(box(0, 0), box(400, 0), width).arrow);
      return Math.hypot(left![0] - right![0], left![1] - right![1]) + Math.abs(tip![0] - left![0]);
    };
    expect(size(7)).toBeGreaterThan(size(1.5));
  });

  it('meets a pill (a hub) on its rounded outline, not at its box corners', () => {
    const pill = { x: 0, y: 0, width: 140, height: 60, pill: true };
    // Straight up and sideways: the flat side and the tip of the round end, as for a box.
    expect(borderPoint(pill, { x: 70, y: -500 })).toEqual({ x: 70, y: -3 });
    expect(borderPoint(pill, { x: 900, y: 30 }).x).toBeCloseTo(143, 5);
    // Toward a corner: on the half circle round (30, 30) or (110, 30), 33 px from its centre.
    for (const toward of [
      { x: 500, y: -100 },
      { x: -400, y: 130 },
      { x: 300, y: 120 },
    ]) {
      const point = borderPoint(pill, toward);
      const end = { x: point.x > 70 ? 110 : 30, y: 30 };
      expect(Math.hypot(point.x - end.x, point.y - end.y)).toBeCloseTo(33, 5);
      expect(borderPoint({ ...pill, pill: false }, toward)).not.toEqual(point);
    }
    // A tall pill works along its long side the same way.
    const tall = { x: 0, y: 0, width: 40, height: 200, pill: true };
    expect(borderPoint(tall, { x: 20, y: 900 }).y).toBeCloseTo(203, 5);
  });

  it('finds the border point in every direction', () => {
    const square = { x: 0, y: 0, width: 100, height: 100 };
    expect(borderPoint(square, { x: 50, y: -500 }).y).toBeCloseTo(-3, 5);
    expect(borderPoint(square, { x: 500, y: 50 }).x).toBeCloseTo(103, 5);
    expect(borderPoint(square, { x: 50, y: 50 })).toEqual({ x: 50, y: 50 });
  });
});

describe('fitting the graph clear of the overlays', () => {
  it('hides the minimap on small panes and keeps it modest on large ones', () => {
    expect(minimapSize({ width: 430, height: 400 })).toBeNull();
    expect(minimapSize({ width: 900, height: 420 })).toBeNull();
    const large = minimapSize({ width: 900, height: 850 })!;
    expect(large.width).toBeLessThanOrEqual(200);
    expect(large.height).toBeLessThan(large.width);
  });

  it('keeps the toolbar strip free and takes the minimap room from whichever side costs least', () => {
    const pane = { width: 900, height: 850 };
    const minimap = minimapSize(pane)!;
    const wide = fitPadding(pane, { width: 1000, height: 200 }, minimap);
    expect(wide.top).toBe(TOOLBAR_HEIGHT + MARGIN);
    expect(wide.right).toBe(MARGIN);
    expect(wide.bottom).toBeGreaterThan(minimap.height);
    const tall = fitPadding(pane, { width: 200, height: 1000 }, minimap);
    expect(tall.right).toBeGreaterThan(minimap.width);
    expect(fitPadding(pane, { width: 200, height: 1000 }, null).right).toBe(MARGIN);
  });

  it('refits for a newcomer only when some card does not show whole clear of the overlays', () => {
    const pane = { width: 430, height: 400 };
    const padding = fitPadding(pane, { width: 400, height: 300 }, null);
    const view = { x: 20, y: 50, zoom: 0.5 };
    const card = { x: 0, y: 0, width: 200, height: 100 };
    // On screen from (20, 50) to (120, 100): inside the pane, below the toolbar strip.
    expect(allShown([card], view, pane, padding)).toBe(true);
    // A newcomer placed right of the drawing, past the pane's right edge once zoomed.
    expect(allShown([card, { x: 700, y: 0, width: 200, height: 100 }], view, pane, padding)).toBe(false);
    // One placed below it, in the room the fit left free: no refit needed.
    expect(allShown([card, { x: 0, y: 300, width: 200, height: 100 }], view, pane, padding)).toBe(true);
    // Under the toolbar strip, or not measured yet: refit.
    expect(allShown([{ ...card, y: -40 }], view, pane, padding)).toBe(false);
    expect(allShown([{ ...card, width: 0 }], view, pane, padding)).toBe(false);
  });

  it('counts a pane a few pixels taller or shorter as the same size, a resized window not', () => {
    const pane = { width: 430, height: 420 };
    expect(nearlySameSize(pane, { width: 430, height: 400 })).toBe(true);
    expect(nearlySameSize(pane, { width: 430, height: 300 })).toBe(false);
    expect(nearlySameSize(pane, { width: 900, height: 420 })).toBe(false);
    // Never fitted yet: not the same.
    expect(nearlySameSize({ width: 0, height: 0 }, pane)).toBe(false);
  });
});
