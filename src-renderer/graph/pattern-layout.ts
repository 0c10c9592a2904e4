import type { TeamSlot } from '../session/team-shape';
import { layeredLayout } from '../ui/layered-layout';
import {
  besides,
  boundsOf,
  fan,
  fitScore,
  grid,
  pipeline,
  rectsOf,
  ring,
  tooClose,
  translateTo,
  type Box,
  type Placement,
  type Point,
  type Rect,
  type ShapeOptions,
  type Size,
} from './shapes';

export type { Point, Rect, Size } from './shapes';

/** A node to place: its measured size, its team slot, and the group (team agent) holding it. */
export interface LayoutNode {
  id: string;
  parent: string | null;
  width: number;
  height: number;
  slot: TeamSlot | null;
  hub: boolean;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export interface LayoutOptions {
  /** Pane width / height: rings, grids and pipelines take the shape that fits it best. */
  aspect: number;
  /** Least space between two boxes. */
  gap?: number;
}

export interface LayoutResult {
  /** Top-left corners; a group's members relative to their group, everything else absolute. */
  positions: Record<string, Point>;
  /** The size each group (team agent with members) must take to hold its members. */
  groupSizes: Record<string, Size>;
}

/** Height of a group's header (the team agent's own label) and the padding around its members. */
export const GROUP_HEADER = 70;
export const GROUP_PADDING = 16;
export const DEFAULT_GAP = 36;

/**
 * Positions from the team pattern: a round robin as a ring in speaking order, a selector as a
 * ring around its hub, a sequential team as a left-to-right pipeline, a parallel team as
 * fan-out/fan-in, a swarm as its handoff graph (plus the edges seen so far), a nested team as a
 * group laid out by its own pattern. Agents the fleet does not list go beside the rest. Uses the
 * boxes' measured sizes; no two boxes come closer than the gap. Pure and deterministic.
 */
export function layoutGraph(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  options: LayoutOptions,
): LayoutResult {
  const shape: ShapeOptions = { gap: options.gap ?? DEFAULT_GAP, aspect: clampAspect(options.aspect) };
  const result: LayoutResult = { positions: {}, groupSizes: {} };
  const ids = new Set(nodes.map((node) => node.id));
  const children = new Map<string | null, LayoutNode[]>();
  for (const node of nodes) {
    const parent =
      node.parent !== null && ids.has(node.parent) && node.parent !== node.id ? node.parent : null;
    children.set(parent, [...(children.get(parent) ?? []), node]);
  }
  arrange(null, children, edges, shape, result, 0);
  return result;
}

function clampAspect(aspect: number): number {
  return Number.isFinite(aspect) && aspect > 0 ? Math.min(4, Math.max(0.25, aspect)) : 1.4;
}

/** Lays out the members of `container` at (0, 0); returns the size they take. */
function arrange(
  container: string | null,
  children: ReadonlyMap<string | null, LayoutNode[]>,
  edges: readonly LayoutEdge[],
  shape: ShapeOptions,
  result: LayoutResult,
  depth: number,
): Size {
  const members = children.get(container) ?? [];
  const boxes: Box[] = members.map((member) => {
    const inner = children.get(member.id);
    if (!inner || inner.length === 0 || depth > 8)
      return { id: member.id, width: member.width, height: member.height };
    const content = arrange(member.id, children, edges, shape, result, depth + 1);
    for (const child of inner) {
      const at = result.positions[child.id] ?? { x: 0, y: 0 };
      result.positions[child.id] = { x: at.x + GROUP_PADDING, y: at.y + GROUP_HEADER };
    }
    const size = {
      width: Math.max(member.width, content.width + 2 * GROUP_PADDING),
      height: GROUP_HEADER + content.height + GROUP_PADDING,
    };
    result.groupSizes[member.id] = size;
    return { id: member.id, ...size };
  });
  const byId = new Map(boxes.map((box) => [box.id, box]));
  const hub = members.find((member) => member.hub);
  const slotted = members
    .filter((member) => !member.hub && member.slot)
    .sort((a, b) => (a.slot?.rank ?? 0) - (b.slot?.rank ?? 0));
  const strangers = members.filter((member) => !member.hub && !member.slot);
  const boxOf = (member: LayoutNode) => byId.get(member.id)!;
  const main = slotted.map(boxOf);
  const hubBox = hub ? boxOf(hub) : undefined;
  const pattern = slotted[0]?.slot?.pattern ?? 'unknown';
  let placement: Placement;
  switch (pattern) {
    case 'round-robin':
      placement = ring(main, shape, hubBox);
      break;
    case 'selector':
      placement = ring(main, shape, hubBox);
      break;
    case 'sequential':
      placement = pipeline(main, shape);
      break;
    case 'parallel':
      placement = parallel(slotted, boxOf, shape);
      break;
    case 'swarm':
    case 'unknown':
      placement = flowOf(slotted, boxOf, edges, shape, pattern === 'swarm');
      break;
  }
  const mainBoxes = [...main];
  if (hubBox) {
    if (!placement[hubBox.id]) {
      // A hub beside a pattern that has no centre (routing seen in another team): above the rest.
      const bounds = boundsOf(rectsOf(main, placement));
      placement[hubBox.id] = {
        x: bounds.x + (bounds.width - hubBox.width) / 2,
        y: bounds.y - hubBox.height - shape.gap * 2,
      };
    }
    mainBoxes.push(hubBox);
  }
  const others = strangers.map(boxOf);
  const all = besides(
    { boxes: mainBoxes, placement },
    { boxes: others, placement: grid(others, shape) },
    shape,
  );
  const everything = [...mainBoxes, ...others];
  const final = translateTo(everything, all, { x: 0, y: 0 });
  for (const [id, at] of Object.entries(final)) result.positions[id] = at;
  const bounds = boundsOf(rectsOf(everything, final));
  return { width: bounds.width, height: bounds.height };
}

function parallel(
  slotted: readonly LayoutNode[],
  boxOf: (node: LayoutNode) => Box,
  shape: ShapeOptions,
): Placement {
  const workers = slotted.filter((node) => node.slot?.part === 'worker').map(boxOf);
  const aggregatorNode = slotted.find((node) => node.slot?.part === 'aggregator');
  const aggregator = aggregatorNode ? boxOf(aggregatorNode) : null;
  const rest = slotted
    .filter((node) => node.slot?.part !== 'worker' && node.slot?.part !== 'aggregator')
    .map(boxOf);
  const core = aggregator ? [...workers, aggregator] : workers;
  return besides(
    { boxes: core, placement: fan(workers, aggregator, shape) },
    { boxes: rest, placement: grid(rest, shape) },
    shape,
  );
}

/**
 * A swarm's handoff graph (or the edges seen in a team of unknown pattern) as layers from its
 * start agent, left to right on a wide pane and top to bottom on a tall one. Edges back toward
 * the start are left out of the ranking so the start stays first. Without any edge: a ring.
 */
function flowOf(
  slotted: readonly LayoutNode[],
  boxOf: (node: LayoutNode) => Box,
  edges: readonly LayoutEdge[],
  shape: ShapeOptions,
  swarm: boolean,
): Placement {
  const ids = slotted.map((node) => node.id);
  const known = new Set(ids);
  const links: LayoutEdge[] = [];
  for (const node of slotted)
    for (const target of node.slot?.handoffs ?? []) links.push({ source: node.id, target });
  for (const edge of edges) links.push(edge);
  const usable = links.filter(
    (link) => link.source !== link.target && known.has(link.source) && known.has(link.target),
  );
  if (usable.length === 0 || (!swarm && ids.length <= 2)) return ring(slotted.map(boxOf), shape);
  const start = slotted.find((node) => node.slot?.part === 'start')?.id ?? ids[0]!;
  const depth = new Map<string, number>([[start, 0]]);
  const queue = [start];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const link of usable) {
      if (link.source !== current || depth.has(link.target)) continue;
      depth.set(link.target, (depth.get(current) ?? 0) + 1);
      queue.push(link.target);
    }
  }
  const forward = usable.filter((link) => {
    const from = depth.get(link.source);
    const to = depth.get(link.target);
    return from === undefined || to === undefined || from < to;
  });
  const sizes: Record<string, { width: number; height: number }> = {};
  for (const node of slotted) {
    const box = boxOf(node);
    sizes[node.id] = { width: box.width, height: box.height };
  }
  return layeredLayout(ids, forward, {
    nodeWidth: 200,
    nodeHeight: 100,
    nodeSeparation: shape.gap * 1.5,
    rankSeparation: shape.gap * 3,
    sizes,
    direction: shape.aspect >= 1 ? 'LR' : 'TB',
  });
}

/**
 * Places nodes that appeared after the layout (senders the fleet does not list) outside the
 * laid-out `drawing` without moving anything already placed: each in the free spot, right of the
 * drawing or below it (twice the gap from its bounds, so it reads as apart and never lands in a
 * ring's middle) and clear of `earlier` newcomers, that keeps the whole best suited to a pane of
 * `aspect`; newcomers fill rows and columns beside one another, not one ever longer column.
 * Pure and deterministic.
 */
export function placeNewcomers(
  layout: { drawing: readonly Rect[]; earlier: readonly Rect[]; aspect: number },
  newcomers: readonly Box[],
  gap = DEFAULT_GAP,
): Record<string, Point> {
  // Twice the gap all round: newcomers stand apart from the drawing, on a regular grid of their own.
  const apart = gap * 2;
  const drawing = layout.drawing.length > 0 ? boundsOf(layout.drawing) : null;
  const rects: Rect[] = [...(drawing ? [drawing] : []), ...layout.earlier];
  const out: Record<string, Point> = {};
  const aspect = clampAspect(layout.aspect);
  for (const box of newcomers) {
    const bounds = boundsOf(rects);
    const xs = new Set([bounds.x, ...rects.map((rect) => rect.x + rect.width + apart)]);
    const ys = new Set([bounds.y, ...rects.map((rect) => rect.y + rect.height + apart)]);
    let best: Rect | null = null;
    let bestScore = -1;
    for (const y of ys)
      for (const x of xs) {
        const rect = { x, y, width: box.width, height: box.height };
        if (rects.some((other) => tooClose(rect, other, apart - 1))) continue;
        const score = fitScore(boundsOf([bounds, rect]), aspect);
        // Ties go to the top-most, then left-most spot: rows fill in reading order.
        const better =
          score > bestScore + 1e-12 ||
          (best !== null && score > bestScore - 1e-12 && (y < best.y || (y === best.y && x < best.x)));
        if (better) {
          best = rect;
          bestScore = score;
        }
      }
    const at = best ?? { x: bounds.x + bounds.width + apart, y: bounds.y };
    out[box.id] = { x: Math.round(at.x), y: Math.round(at.y) };
    rects.push({ ...out[box.id]!, width: box.width, height: box.height });
  }
  return out;
}

/** From this many agents and teams at the top level, Auto layout offers layers by message flow. */
export const LAYERS_FROM = 6;

/**
 * The layout of `layoutGraph`, with the top level arranged in layers along every edge seen (a
 * group keeps its members' own layout and moves whole): left to right or top to bottom,
 * whichever fits a pane of `aspect` at the larger scale. For a graph too big for its pattern's
 * ring or pipeline to read. Pure and deterministic.
 */
export function layeredByEdges(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  options: LayoutOptions,
): LayoutResult {
  const result = layoutGraph(nodes, edges, options);
  const ids = new Set(nodes.map((node) => node.id));
  const top = nodes.filter((node) => node.parent === null || !ids.has(node.parent));
  const topIds = new Set(top.map((node) => node.id));
  // An edge into or out of a group's member counts for the group.
  const parentOf = new Map(nodes.map((node) => [node.id, node.parent]));
  const lift = (id: string): string => {
    let at = id;
    for (let depth = 0; !topIds.has(at) && depth < 10; depth++) at = parentOf.get(at) ?? at;
    return at;
  };
  const links = edges.map((edge) => ({ source: lift(edge.source), target: lift(edge.target) }));
  const sizes: Record<string, Size> = {};
  for (const node of top)
    sizes[node.id] = result.groupSizes[node.id] ?? { width: node.width, height: node.height };
  const gap = options.gap ?? DEFAULT_GAP;
  const aspect = clampAspect(options.aspect);
  let best: Record<string, Point> | null = null;
  let bestScore = -1;
  for (const direction of ['LR', 'TB'] as const) {
    const placed = layeredLayout(
      top.map((node) => node.id),
      links,
      {
        nodeWidth: 200,
        nodeHeight: 100,
        nodeSeparation: gap * 1.5,
        rankSeparation: gap * 2.5,
        sizes,
        direction,
      },
    );
    const score = fitScore(
      boundsOf(top.map((node) => ({ ...placed[node.id]!, ...sizes[node.id]! }))),
      aspect,
    );
    if (score > bestScore) {
      best = placed;
      bestScore = score;
    }
  }
  for (const [id, at] of Object.entries(best ?? {})) result.positions[id] = at;
  return result;
}
