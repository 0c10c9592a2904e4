/**
 * Arrangements of boxes of known sizes: ring, grid, pipeline, fan-out/fan-in and hub. Each
 * returns top-left corners with no two boxes closer than `gap`; callers pick the arrangement
 * from the team pattern. Pure, deterministic, no DOM.
 */

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Box extends Size {
  id: string;
}

export interface Rect extends Point, Size {}

/** Space between boxes, and the shape of the pane the drawing should suit (width / height). */
export interface ShapeOptions {
  gap: number;
  aspect: number;
}

export type Placement = Record<string, Point>;

/** True when the two rectangles come closer than `gap` (touching at exactly `gap` is fine). */
export function tooClose(a: Rect, b: Rect, gap: number): boolean {
  return (
    a.x < b.x + b.width + gap - 0.5 &&
    b.x < a.x + a.width + gap - 0.5 &&
    a.y < b.y + b.height + gap - 0.5 &&
    b.y < a.y + a.height + gap - 0.5
  );
}

export function rectsOf(boxes: readonly Box[], placement: Placement): Rect[] {
  return boxes.map((box) => ({
    ...(placement[box.id] ?? { x: 0, y: 0 }),
    width: box.width,
    height: box.height,
  }));
}

export function boundsOf(rects: readonly Rect[]): Rect {
  if (rects.length === 0) return { x: 0, y: 0, width: 0, height: 0 };
  const left = Math.min(...rects.map((rect) => rect.x));
  const top = Math.min(...rects.map((rect) => rect.y));
  const right = Math.max(...rects.map((rect) => rect.x + rect.width));
  const bottom = Math.max(...rects.map((rect) => rect.y + rect.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Moves a placement so its bounds start at `origin`. */
export function translateTo(boxes: readonly Box[], placement: Placement, origin: Point): Placement {
  const bounds = boundsOf(rectsOf(boxes, placement));
  const out: Placement = {};
  for (const box of boxes) {
    const at = placement[box.id] ?? { x: 0, y: 0 };
    out[box.id] = { x: Math.round(at.x - bounds.x + origin.x), y: Math.round(at.y - bounds.y + origin.y) };
  }
  return out;
}

/** How well a drawing of `size` fits a pane of the given aspect (the zoom it would get, relative). */
export function fitScore(size: Size, aspect: number): number {
  if (size.width <= 0 || size.height <= 0) return Infinity;
  return Math.min(aspect / size.width, 1 / size.height);
}

function maxSize(boxes: readonly Box[]): Size {
  return {
    width: Math.max(0, ...boxes.map((box) => box.width)),
    height: Math.max(0, ...boxes.map((box) => box.height)),
  };
}

/** Boxes in rows of `columns` cells (reading order), each box centred in its cell. */
function gridWith(boxes: readonly Box[], columns: number, gap: number): Placement {
  const cell = maxSize(boxes);
  const out: Placement = {};
  boxes.forEach((box, index) => {
    const column = index % columns;
    const row = Math.floor(index / columns);
    out[box.id] = {
      x: column * (cell.width + gap) + (cell.width - box.width) / 2,
      y: row * (cell.height + gap) + (cell.height - box.height) / 2,
    };
  });
  return out;
}

/** The column count whose grid suits the pane best. */
function bestColumns(
  boxes: readonly Box[],
  options: ShapeOptions,
  gapX: number,
  gapY: number,
  rowPenalty = 1,
): number {
  const cell = maxSize(boxes);
  let best = 1;
  let bestScore = -1;
  for (let columns = 1; columns <= boxes.length; columns += 1) {
    const rows = Math.ceil(boxes.length / columns);
    // Skip column counts that leave the same number of rows as a smaller count (ragged last row).
    if (columns > 1 && Math.ceil(boxes.length / (columns - 1)) === rows) continue;
    const size = {
      width: columns * cell.width + (columns - 1) * gapX,
      height: rows * cell.height + (rows - 1) * gapY,
    };
    const score = fitScore(size, options.aspect) * rowPenalty ** (rows - 1);
    if (score > bestScore + 1e-12) {
      best = columns;
      bestScore = score;
    }
  }
  return best;
}

/** A grid in reading order with as many columns as suit the pane. */
export function grid(boxes: readonly Box[], options: ShapeOptions): Placement {
  if (boxes.length === 0) return {};
  const gap = options.gap;
  return gridWith(boxes, bestColumns(boxes, options, gap, gap), gap);
}

/**
 * A left-to-right pipeline in the given order. When the pane is too narrow for one row it
 * snakes: the next row continues under the last box and runs back, so each step stays a short
 * arrow to a neighbour and no arrow crosses the drawing.
 */
export function pipeline(boxes: readonly Box[], options: ShapeOptions): Placement {
  // A pipeline prefers fewer rows: each extra row must buy a third more zoom.
  return snake(boxes, options, options.gap * 2, options.gap * 1.25, 0.75);
}

/**
 * Rows that run alternately left to right and back, so consecutive boxes are neighbours. Each
 * column is as wide as its widest box and each row as tall as its tallest, so one big box (a
 * nested team's group) widens only its own column and row instead of every cell, which would
 * leave small agents adrift in holes their own size could never fill.
 */
function snake(
  boxes: readonly Box[],
  options: ShapeOptions,
  gapX: number,
  gapY: number,
  rowPenalty: number,
): Placement {
  if (boxes.length === 0) return {};
  let best: Placement = {};
  let bestScore = -1;
  for (let columns = 1; columns <= boxes.length; columns += 1) {
    const rows = Math.ceil(boxes.length / columns);
    // Skip column counts that leave the same number of rows as a smaller count (ragged last row).
    if (columns > 1 && Math.ceil(boxes.length / (columns - 1)) === rows) continue;
    const placement = snakeWith(boxes, columns, gapX, gapY);
    const score = fitScore(boundsOf(rectsOf(boxes, placement)), options.aspect) * rowPenalty ** (rows - 1);
    if (score > bestScore + 1e-12) {
      best = placement;
      bestScore = score;
    }
  }
  return best;
}

/** The snake in rows of `columns`, each box centred in its column and row. */
function snakeWith(boxes: readonly Box[], columns: number, gapX: number, gapY: number): Placement {
  const cellOf = (index: number) => {
    const row = Math.floor(index / columns);
    const step = index % columns;
    return { row, column: row % 2 === 0 ? step : columns - 1 - step };
  };
  const widths: number[] = Array.from({ length: columns }, () => 0);
  const heights: number[] = Array.from({ length: Math.ceil(boxes.length / columns) }, () => 0);
  boxes.forEach((box, index) => {
    const { row, column } = cellOf(index);
    widths[column] = Math.max(widths[column]!, box.width);
    heights[row] = Math.max(heights[row]!, box.height);
  });
  const starts = (sizes: readonly number[], gap: number) =>
    sizes.map((_, index) => sizes.slice(0, index).reduce((sum, size) => sum + size + gap, 0));
  const xs = starts(widths, gapX);
  const ys = starts(heights, gapY);
  const out: Placement = {};
  boxes.forEach((box, index) => {
    const { row, column } = cellOf(index);
    out[box.id] = {
      x: xs[column]! + (widths[column]! - box.width) / 2,
      y: ys[row]! + (heights[row]! - box.height) / 2,
    };
  });
  return out;
}

function ellipseAt(boxes: readonly Box[], rx: number, ry: number, phase: number): Placement {
  const out: Placement = {};
  boxes.forEach((box, index) => {
    // Clockwise from the top (or half a step before it), in the given (speaking) order.
    const angle = -Math.PI / 2 + (2 * Math.PI * (index - phase)) / boxes.length;
    out[box.id] = {
      x: rx * Math.cos(angle) - box.width / 2,
      y: ry * Math.sin(angle) - box.height / 2,
    };
  });
  return out;
}

function clear(rects: readonly Rect[], gap: number): boolean {
  for (let i = 0; i < rects.length; i += 1)
    for (let j = i + 1; j < rects.length; j += 1) if (tooClose(rects[i]!, rects[j]!, gap)) return false;
  return true;
}

/** True when `centre` keeps `gap` from every box. */
function clearOf(centre: Box, boxes: readonly Box[], placement: Placement, gap: number): boolean {
  const [own] = rectsOf([centre], placement);
  return rectsOf(boxes, placement).every((rect) => !tooClose(own!, rect, gap));
}

/**
 * Rings above this many boxes become grids that snake in speaking order (each turn an arrow to
 * a neighbour): a bigger ring only shrinks every label.
 */
export const RING_LIMIT = 16;

/**
 * A ring (an ellipse shaped to the pane) clockwise from the top in the given order, around an
 * optional centre box (a hub). Two boxes sit side by side; above `RING_LIMIT` boxes a grid in
 * the same order replaces the ring (with the centre box above it).
 */
export function ring(boxes: readonly Box[], options: ShapeOptions, centre?: Box): Placement {
  // Neighbours on a ring are joined by arrows with count labels: leave them room.
  const gap = options.gap * 1.5;
  if (boxes.length > RING_LIMIT)
    return withHubAbove(snake(boxes, options, options.gap * 1.5, options.gap, 1), boxes, options.gap, centre);
  // Two agents side by side, with room between for both arrows and their labels.
  if (!centre && boxes.length <= 2) return gridWith(boxes, boxes.length, options.gap * 2.5);
  if (centre && boxes.length === 0) return { [centre.id]: { x: 0, y: 0 } };
  const cell = maxSize(boxes);
  let best: Placement = {};
  let bestScore = -1;
  const all = centre ? [...boxes, centre] : boxes;
  // Four agents read best as a square, three as a triangle with its point up: try both phases.
  for (const phase of [0, 0.5])
    for (const ratio of [0.5, 0.7, 0.85, 1, 1.2, 1.45, 1.75, 2.1, 2.6, 3.2]) {
      // Grow the ellipse until no two boxes (centre included) come within the gap.
      let scale = Math.max(cell.width, cell.height) / 2;
      let placement: Placement = {};
      for (let step = 0; step < 200; step += 1) {
        placement = ellipseAt(boxes, scale * ratio, scale, phase);
        if (centre) placement[centre.id] = { x: -centre.width / 2, y: -centre.height / 2 };
        if (
          clear(rectsOf(boxes, placement), gap) &&
          (!centre || clearOf(centre, boxes, placement, options.gap))
        )
          break;
        scale *= 1.04;
      }
      // Ties go to the first tried: no phase shift, the first speaker at the top.
      const score = fitScore(boundsOf(rectsOf(all, placement)), options.aspect);
      if (score > bestScore * 1.02) {
        best = placement;
        bestScore = score;
      }
    }
  return best;
}

function withHubAbove(placement: Placement, boxes: readonly Box[], gap: number, centre?: Box): Placement {
  if (!centre) return placement;
  const bounds = boundsOf(rectsOf(boxes, placement));
  return {
    ...placement,
    [centre.id]: { x: bounds.x + (bounds.width - centre.width) / 2, y: bounds.y - centre.height - gap * 2 },
  };
}

/**
 * Fan-out/fan-in: the workers in a column (several when there are many) with the aggregator to
 * their right, centred; wide gaps so the fan of arrows stays readable.
 */
export function fan(workers: readonly Box[], aggregator: Box | null, options: ShapeOptions): Placement {
  const gapX = options.gap * 3;
  const block = grid(workers, { gap: options.gap, aspect: Math.max(0.2, options.aspect / 2.2) });
  if (!aggregator) return block;
  const bounds = boundsOf(rectsOf(workers, block));
  return {
    ...block,
    [aggregator.id]: {
      x: bounds.x + bounds.width + gapX,
      y: bounds.y + (bounds.height - aggregator.height) / 2,
    },
  };
}

/** Places `block` (already arranged) beside or below `main` with `gap`, whichever suits the pane. */
export function besides(
  main: { boxes: readonly Box[]; placement: Placement },
  block: { boxes: readonly Box[]; placement: Placement },
  options: ShapeOptions,
): Placement {
  if (block.boxes.length === 0) return main.placement;
  if (main.boxes.length === 0) return block.placement;
  const a = boundsOf(rectsOf(main.boxes, main.placement));
  const b = boundsOf(rectsOf(block.boxes, block.placement));
  const gap = options.gap * 2;
  const right = translateTo(block.boxes, block.placement, { x: a.x + a.width + gap, y: a.y });
  const below = translateTo(block.boxes, block.placement, { x: a.x, y: a.y + a.height + gap });
  const rightSize = { width: a.width + gap + b.width, height: Math.max(a.height, b.height) };
  const belowSize = { width: Math.max(a.width, b.width), height: a.height + gap + b.height };
  const chosen = fitScore(rightSize, options.aspect) >= fitScore(belowSize, options.aspect) ? right : below;
  return { ...main.placement, ...chosen };
}
