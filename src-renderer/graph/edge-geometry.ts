/**
 * Floating edges: a gentle curve between two boxes, leaving and entering at their borders
 * wherever the other box lies (no fixed handles), so rings, hubs and fans all read cleanly. The
 * curve always bends to the left of its direction, so the two directions between one pair of
 * agents never overlap. Pure.
 */

export interface EdgeBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** A pill (a hub): its short sides are half circles, so edges meet its outline, not its box's corners. */
  pill?: boolean;
}

export interface EdgeGeometry {
  /** The curve, ending where the arrowhead starts. */
  path: string;
  /** The arrowhead: a triangle whose tip touches the target's border. */
  arrow: string;
  /** The middle of the curve, where the count label sits. */
  labelX: number;
  labelY: number;
  /** The label, where it sits, overlaps one of the cards it was to keep clear of. */
  labelOverCard: boolean;
  start: { x: number; y: number };
  end: { x: number; y: number };
}

/** Space left between a box border and the start or the arrow tip of an edge. */
const BORDER_GAP = 3;

function centre(box: EdgeBox): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Where the ray from the box centre toward `toward` leaves the box (plus a small gap): the
 * rectangle, or for a pill its outline (two straight sides joined by half circles).
 */
export function borderPoint(box: EdgeBox, toward: { x: number; y: number }): { x: number; y: number } {
  const from = centre(box);
  const dx = toward.x - from.x;
  const dy = toward.y - from.y;
  if (dx === 0 && dy === 0) return from;
  const halfWidth = box.width / 2 + BORDER_GAP;
  const halfHeight = box.height / 2 + BORDER_GAP;
  const scale = box.pill
    ? pillScale(halfWidth, halfHeight, dx, dy)
    : Math.min(
        dx === 0 ? Infinity : halfWidth / Math.abs(dx),
        dy === 0 ? Infinity : halfHeight / Math.abs(dy),
      );
  return { x: from.x + dx * scale, y: from.y + dy * scale };
}

/**
 * How far along (dx, dy) from a pill's centre its outline lies, as a multiple of (dx, dy): the
 * pill is the set of points within `radius` (half its short side) of its long middle segment.
 */
function pillScale(halfWidth: number, halfHeight: number, dx: number, dy: number): number {
  const wide = halfWidth >= halfHeight;
  // Work along the long axis as x.
  const along = wide ? dx : dy;
  const across = wide ? dy : dx;
  const radius = Math.min(halfWidth, halfHeight);
  const flat = Math.max(halfWidth, halfHeight) - radius;
  const length = Math.hypot(dx, dy);
  const ux = along / length;
  const uy = across / length;
  // Through a straight side.
  if (uy !== 0) {
    const t = radius / Math.abs(uy);
    if (Math.abs(t * ux) <= flat) return t / length;
  }
  // Through the half circle at the end the ray heads for: |t·u − (±flat, 0)| = radius.
  const b = Math.sign(ux) * flat * ux;
  const t = b + Math.sqrt(Math.max(0, b * b - flat * flat + radius * radius));
  return t / length;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The size of an edge's count label as drawn, in flow pixels. */
export interface LabelSize {
  width: number;
  height: number;
}

/**
 * Where along the curve (0 to 1) the label may sit, best first: a little before the middle, then
 * nearer the source. Off the middle, the labels of two edges that cross at their middles (a ring's
 * diagonals) sit apart instead of one on the other.
 */
const LABEL_STOPS = [0.4, 0.32, 0.5, 0.26, 0.58, 0.2];
/** Further spots tried only to keep a label off the cards, nearer either end. */
const CARD_CLEAR_STOPS = [...LABEL_STOPS, 0.66, 0.14, 0.72, 0.08];
/** Room kept between a label and a card. */
const CARD_GAP = 3;
/** Room kept between two count labels, so each reads as its own number. */
const LABEL_GAP = 4;
/** Another label's box: its centre and size. */
export interface LabelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
/** Room kept between a label and the arrowhead, so the arrow reads as an arrow beside it. */
const ARROW_GAP = 8;

/**
 * The label's centre: the middle of the curve, or, on an edge too short for the label to sit
 * between its ends, slid back toward the source so that it covers neither the arrowhead nor,
 * where there is room, the edge's start (with no room at all: as far back as it goes). A spot
 * clear of every card in `cards` (and of the other labels) is taken first, anywhere along the
 * curve; `overCard` says whether the spot taken covers a card, `crowded` whether it is too near
 * another label.
 */
function labelPoint(
  start: { x: number; y: number },
  control: { x: number; y: number },
  end: { x: number; y: number },
  arrow: Array<{ x: number; y: number }>,
  label: LabelSize | null,
  taken: readonly LabelBox[],
  cards: readonly EdgeBox[],
): { x: number; y: number; overCard: boolean; crowded: boolean } {
  const at = (t: number) => ({
    x: (1 - t) ** 2 * start.x + 2 * (1 - t) * t * control.x + t * t * end.x,
    y: (1 - t) ** 2 * start.y + 2 * (1 - t) * t * control.y + t * t * end.y,
  });
  if (!label) return { ...at(LABEL_STOPS[0]!), overCard: false, crowded: false };
  const covers = (centre: { x: number; y: number }, point: { x: number; y: number }, gap: number) =>
    Math.abs(point.x - centre.x) < label.width / 2 + gap &&
    Math.abs(point.y - centre.y) < label.height / 2 + gap;
  const overCard = (centre: { x: number; y: number }) =>
    cards.some(
      (card) =>
        centre.x + label.width / 2 + CARD_GAP > card.x &&
        centre.x - label.width / 2 - CARD_GAP < card.x + card.width &&
        centre.y + label.height / 2 + CARD_GAP > card.y &&
        centre.y - label.height / 2 - CARD_GAP < card.y + card.height,
    );
  const offArrow = (centre: { x: number; y: number }) =>
    !arrow.some((point) => covers(centre, point, ARROW_GAP));
  // Two labels side by side read as one number ("1 2"): keep a gap of LABEL_GAP between them.
  const free = (centre: { x: number; y: number }) =>
    !taken.some(
      (other) =>
        Math.abs(other.x - centre.x) < (other.width + label.width) / 2 + LABEL_GAP &&
        Math.abs(other.y - centre.y) < (other.height + label.height) / 2 + LABEL_GAP,
    );
  if (cards.length > 0) {
    const clear = CARD_CLEAR_STOPS.map(at).find(
      (centre) => offArrow(centre) && free(centre) && !covers(centre, start, 2) && !overCard(centre),
    );
    if (clear) return { ...clear, overCard: false, crowded: false };
  }
  const clearOfArrow = LABEL_STOPS.map(at).filter(offArrow);
  const centre =
    clearOfArrow.find((point) => free(point) && !covers(point, start, 2)) ??
    clearOfArrow.find((point) => !covers(point, start, 2)) ??
    clearOfArrow[0] ??
    at(LABEL_STOPS[LABEL_STOPS.length - 1]!);
  return { ...centre, overCard: overCard(centre), crowded: !free(centre) };
}

/** How much further an edge may bow, step by step, to find its label a spot off the cards. */
const EXTRA_BOWS = [30, 60, 90];

/**
 * The curve from `source` to `target` for a stroke of `width` pixels, with a count label of
 * `label`'s size (null: placed in the middle whatever its size) kept clear of the labels `taken`
 * and, where some spot allows, of the `cards`: along the curve, or else on a curve bowed further
 * out (two cards too close for the label between them get an arc round them); `bend` (0 to 1) is
 * how far it bows, relative to its length. The arrowhead grows with the stroke so it always shows.
 */
export function floatingEdge(
  source: EdgeBox,
  target: EdgeBox,
  width = 1.5,
  label: LabelSize | null = null,
  bend = 0.14,
  taken: readonly LabelBox[] = [],
  cards: readonly EdgeBox[] = [],
): EdgeGeometry {
  const geometry = bowedEdge(source, target, width, label, bend, taken, cards, 0);
  if (!geometry.labelOverCard) return geometry.edge;
  for (const extra of EXTRA_BOWS) {
    const bowed = bowedEdge(source, target, width, label, bend, taken, cards, extra);
    // Bowed further out only to a spot clear of the other labels too.
    if (!bowed.labelOverCard && !bowed.crowded) return bowed.edge;
  }
  return geometry.edge;
}

function bowedEdge(
  source: EdgeBox,
  target: EdgeBox,
  width: number,
  label: LabelSize | null,
  bend: number,
  taken: readonly LabelBox[],
  cards: readonly EdgeBox[],
  extra: number,
): { edge: EdgeGeometry; labelOverCard: boolean; crowded: boolean } {
  const from = centre(source);
  const to = centre(target);
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  // Bow to the left of the direction of travel (screen coordinates: y grows downward). The two
  // directions between one pair bow apart by `offset` at their middles: at least the label's
  // extent across the line, so their count labels never stack ("1" over "2").
  const across = label ? (Math.abs(dy) * label.width + Math.abs(dx) * label.height) / length + 4 : 0;
  const offset = Math.max(across, Math.min(60, Math.max(12, length * bend))) + extra;
  const control = {
    x: (from.x + to.x) / 2 + (dy / length) * offset,
    y: (from.y + to.y) / 2 - (dx / length) * offset,
  };
  const start = borderPoint(source, control);
  const end = borderPoint(target, control);
  // The curve's direction at its end is from the control point to the end.
  const tx = end.x - control.x;
  const ty = end.y - control.y;
  const tangent = Math.hypot(tx, ty) || 1;
  const ux = tx / tangent;
  const uy = ty / tangent;
  const arrowLength = 9 + width * 0.9;
  const arrowHalf = 4.5 + width * 0.7;
  const base = { x: end.x - ux * arrowLength, y: end.y - uy * arrowLength };
  // The stroke stops inside the arrowhead so its end never shows beside the tip.
  const stop = { x: end.x - ux * arrowLength * 0.6, y: end.y - uy * arrowLength * 0.6 };
  const left = { x: base.x - uy * arrowHalf, y: base.y + ux * arrowHalf };
  const right = { x: base.x + uy * arrowHalf, y: base.y - ux * arrowHalf };
  const labelAt = labelPoint(start, control, end, [end, left, right, base], label, taken, cards);
  const edge: EdgeGeometry = {
    path: `M ${round(start.x)} ${round(start.y)} Q ${round(control.x)} ${round(control.y)} ${round(stop.x)} ${round(stop.y)}`,
    arrow: [end, left, right].map((point) => `${round(point.x)},${round(point.y)}`).join(' '),
    labelX: round(labelAt.x),
    labelY: round(labelAt.y),
    labelOverCard: labelAt.overCard,
    start,
    end,
  };
  return { edge, labelOverCard: labelAt.overCard, crowded: labelAt.crowded };
}
