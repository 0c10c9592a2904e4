import { describe, expect, it } from 'vitest';
import type { LayoutPattern, TeamPart, TeamSlot } from '../../../src-renderer/session/team-shape';
import {
  DEFAULT_GAP,
  GROUP_HEADER,
  layoutGraph,
  placeNewcomers,
  type LayoutNode,
  type Rect,
} from '../../../src-renderer/graph/pattern-layout';
import { tooClose } from '../../../src-renderer/graph/shapes';

function slot(
  pattern: LayoutPattern,
  rank: number,
  part: TeamPart = 'member',
  extra: Partial<TeamSlot> = {},
): TeamSlot {
  return { scope: '', group: '', pattern, part, rank, handoffs: [], isTeam: false, ...extra };
}

/** Boxes of varied measured sizes, like agents with short and long names. */
function agents(count: number, pattern: LayoutPattern, part?: (index: number) => TeamPart): LayoutNode[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `a${index}`,
    parent: null,
    width: 190 + (index % 3) * 40,
    height: 92 + (index % 2) * 14,
    slot: slot(pattern, index, part?.(index)),
    hub: false,
  }));
}

/** Absolute rectangles (members of groups offset by their group). */
function absolute(
  nodes: readonly LayoutNode[],
  positions: Record<string, { x: number; y: number }>,
  sizes: Record<string, { width: number; height: number }>,
): Map<string, Rect> {
  const out = new Map<string, Rect>();
  const place = (node: LayoutNode): Rect => {
    const known = out.get(node.id);
    if (known) return known;
    const at = positions[node.id]!;
    const parent = node.parent ? place(nodes.find((item) => item.id === node.parent)!) : { x: 0, y: 0 };
    const size = sizes[node.id] ?? { width: node.width, height: node.height };
    const rect = { x: at.x + parent.x, y: at.y + parent.y, ...size };
    out.set(node.id, rect);
    return rect;
  };
  for (const node of nodes) place(node);
  return out;
}

function overlapsAmong(rects: readonly Rect[], gap: number): number {
  let count = 0;
  for (let i = 0; i < rects.length; i += 1)
    for (let j = i + 1; j < rects.length; j += 1) if (tooClose(rects[i]!, rects[j]!, gap)) count += 1;
  return count;
}

/** Three agents whose second is a team (a1) of three members of the given size. */
function nestedTeam(
  outerPattern: LayoutPattern,
  innerPattern: LayoutPattern,
  size: { width: number; height: number },
) {
  const outer = agents(3, outerPattern);
  outer[1]!.slot = slot(outerPattern, 1, 'member', { isTeam: true });
  const inner: LayoutNode[] = ['x', 'y', 'z'].map((name, index) => ({
    id: `a1/${name}`,
    parent: 'a1',
    ...size,
    slot: slot(innerPattern, index, 'member', { scope: 'a1/', group: 'a1' }),
    hub: false,
  }));
  return { outer, inner, nodes: [...outer, ...inner] };
}

const SIZES = [2, 3, 4, 5, 7, 12, 16, 17, 30, 50];
const ASPECTS = [0.8, 1.6];

describe('pattern layout', () => {
  for (const pattern of ['round-robin', 'sequential', 'selector', 'swarm', 'parallel', 'unknown'] as const) {
    it(`places 2 to 50 agents of a ${pattern} team with no two boxes closer than the gap`, () => {
      for (const count of SIZES) {
        for (const aspect of ASPECTS) {
          const nodes = agents(count, pattern, (index) =>
            pattern === 'parallel'
              ? index === count - 1
                ? 'aggregator'
                : 'worker'
              : index === 0 && pattern === 'swarm'
                ? 'start'
                : 'member',
          );
          if (pattern === 'selector')
            nodes.push({ id: '@selector', parent: null, width: 120, height: 60, slot: null, hub: true });
          const edges =
            pattern === 'swarm' ? nodes.slice(1).map((node) => ({ source: 'a0', target: node.id })) : [];
          const { positions } = layoutGraph(nodes, edges, { aspect });
          expect(Object.keys(positions).sort()).toEqual(nodes.map((node) => node.id).sort());
          const rects = [...absolute(nodes, positions, {}).values()];
          expect(overlapsAmong(rects, DEFAULT_GAP - 1), `${pattern} ${count} @${aspect}`).toBe(0);
        }
      }
    });
  }

  it('puts a round robin on a ring in speaking order, clockwise from the top', () => {
    const nodes = agents(6, 'round-robin').map((node, index) => ({
      ...node,
      width: 200,
      height: 100,
      slot: slot('round-robin', (index + 2) % 6),
    }));
    const { positions } = layoutGraph(nodes, [], { aspect: 1 });
    const centre = (id: string) => ({ x: positions[id]!.x + 100, y: positions[id]!.y + 50 });
    const all = nodes.map((node) => centre(node.id));
    const mid = { x: all.reduce((s, p) => s + p.x, 0) / 6, y: all.reduce((s, p) => s + p.y, 0) / 6 };
    const bySpeaking = [...nodes].sort((a, b) => a.slot!.rank - b.slot!.rank).map((node) => centre(node.id));
    const angles = bySpeaking.map((p) => (Math.atan2(p.y - mid.y, p.x - mid.x) * 180) / Math.PI);
    // First speaker at the top (at -90 degrees or half a step before), then clockwise
    // (increasing angle on screen).
    expect(angles[0]).toBeGreaterThanOrEqual(-135);
    expect(angles[0]).toBeLessThanOrEqual(-89);
    const unwrapped = angles.map((angle) => (angle < angles[0]! - 0.5 ? angle + 360 : angle));
    for (let i = 1; i < unwrapped.length; i += 1) expect(unwrapped[i]!).toBeGreaterThan(unwrapped[i - 1]!);
  });

  it('lays a sequential team left to right in its order on a wide pane', () => {
    const nodes = agents(4, 'sequential').reverse();
    const { positions } = layoutGraph(nodes, [], { aspect: 4 });
    const xs = ['a0', 'a1', 'a2', 'a3'].map((id) => positions[id]!.x);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    expect(new Set(['a0', 'a1', 'a2', 'a3'].map((id) => positions[id]!.y)).size).toBeLessThanOrEqual(2);
  });

  it('snakes a long pipeline into rows on a narrow pane, each step to a neighbour', () => {
    const nodes = agents(6, 'sequential');
    const { positions } = layoutGraph(nodes, [], { aspect: 0.8 });
    const rows = new Set(nodes.map((node) => Math.round(positions[node.id]!.y / 50)));
    expect(rows.size).toBeGreaterThan(1);
    const centre = (id: string) => ({ x: positions[id]!.x + 115, y: positions[id]!.y + 50 });
    for (let i = 1; i < nodes.length; i += 1) {
      const from = centre(`a${i - 1}`);
      const to = centre(`a${i}`);
      // Consecutive stages are neighbours: side by side in a row, or one above the other.
      const sameRow = Math.abs(from.y - to.y) < 30;
      const sameColumn = Math.abs(from.x - to.x) < 30;
      expect(sameRow || sameColumn, `a${i - 1} -> a${i}`).toBe(true);
    }
    // The first row runs left to right.
    expect(positions.a1!.x).toBeGreaterThan(positions.a0!.x);
  });

  it('turns a ring of more than 16 agents into a grid that snakes in speaking order', () => {
    const nodes = agents(30, 'round-robin').map((node) => ({ ...node, width: 200, height: 100 }));
    const { positions } = layoutGraph(nodes, [], { aspect: 1.5 });
    for (let i = 1; i < nodes.length; i += 1) {
      const from = positions[`a${i - 1}`]!;
      const to = positions[`a${i}`]!;
      expect(from.x === to.x || from.y === to.y, `a${i - 1} -> a${i}`).toBe(true);
      expect(Math.abs(from.x - to.x) + Math.abs(from.y - to.y)).toBeLessThan(300);
    }
  });

  it('fans a parallel team out to its workers and in to the aggregator on their right', () => {
    const nodes = agents(4, 'parallel', (index) => (index === 3 ? 'aggregator' : 'worker'));
    const { positions } = layoutGraph(nodes, [], { aspect: 1.4 });
    for (const worker of ['a0', 'a1', 'a2'])
      expect(positions.a3!.x).toBeGreaterThan(positions[worker]!.x + 190);
    expect(positions.a1!.y).toBeGreaterThan(positions.a0!.y);
  });

  it('puts the selector hub in the middle of its agents', () => {
    const nodes = [
      ...agents(5, 'selector'),
      { id: '@selector', parent: null, width: 120, height: 60, slot: null, hub: true },
    ];
    const { positions } = layoutGraph(nodes, [], { aspect: 1.2 });
    const rects = absolute(nodes, positions, {});
    const hub = rects.get('@selector')!;
    const others = nodes.filter((node) => !node.hub).map((node) => rects.get(node.id)!);
    const cx = (rect: Rect) => rect.x + rect.width / 2;
    const cy = (rect: Rect) => rect.y + rect.height / 2;
    expect(Math.min(...others.map(cx))).toBeLessThan(cx(hub));
    expect(Math.max(...others.map(cx))).toBeGreaterThan(cx(hub));
    expect(Math.min(...others.map(cy))).toBeLessThan(cy(hub));
    expect(Math.max(...others.map(cy))).toBeGreaterThan(cy(hub));
  });

  it('starts a swarm at its start agent and follows the handoffs', () => {
    const nodes = agents(3, 'swarm');
    nodes[1]!.slot = slot('swarm', 1, 'start', { handoffs: ['a0', 'a2'] });
    nodes[0]!.slot = slot('swarm', 0, 'member', { handoffs: ['a1'] });
    const { positions } = layoutGraph(nodes, [], { aspect: 2 });
    expect(positions.a1!.x).toBeLessThan(positions.a0!.x);
    expect(positions.a1!.x).toBeLessThan(positions.a2!.x);
  });

  it('keeps the stages of a pipeline round a big nested team next to it, with no hole between', () => {
    const { outer, nodes } = nestedTeam('sequential', 'round-robin', { width: 210, height: 106 });
    for (const aspect of [0.8, 1, 1.16, 1.6, 2.5]) {
      const { positions, groupSizes } = layoutGraph(nodes, [], { aspect });
      const rects = absolute(nodes, positions, groupSizes);
      // The group is far bigger than the stages beside it: a grid of equal cells would leave
      // each stage adrift in the middle of a group-sized cell, far from its neighbour.
      expect(groupSizes.a1!.width).toBeGreaterThan(outer[0]!.width * 2);
      for (const [from, to] of [
        ['a0', 'a1'],
        ['a1', 'a2'],
      ] as const) {
        const a = rects.get(from)!;
        const b = rects.get(to)!;
        const apartX = Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width), 0);
        const apartY = Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height), 0);
        expect(Math.max(apartX, apartY), `${from} -> ${to} at aspect ${aspect}`).toBeLessThanOrEqual(
          DEFAULT_GAP * 2 + 1,
        );
      }
    }
  });

  it('draws a nested team as a group holding its members, sized to them', () => {
    const { outer, inner, nodes } = nestedTeam('round-robin', 'sequential', { width: 180, height: 90 });
    const { positions, groupSizes } = layoutGraph(nodes, [], { aspect: 1.4 });
    const group = groupSizes.a1!;
    for (const member of inner) {
      const at = positions[member.id]!;
      expect(at.y).toBeGreaterThanOrEqual(GROUP_HEADER);
      expect(at.x + member.width).toBeLessThanOrEqual(group.width);
      expect(at.y + member.height).toBeLessThanOrEqual(group.height);
    }
    const rects = absolute(nodes, positions, groupSizes);
    expect(
      overlapsAmong(
        outer.map((node) => rects.get(node.id)!),
        DEFAULT_GAP - 1,
      ),
    ).toBe(0);
    expect(
      overlapsAmong(
        inner.map((node) => rects.get(node.id)!),
        DEFAULT_GAP - 1,
      ),
    ).toBe(0);
  });

  it('places newcomers beside the drawing without moving anything', () => {
    const existing: Rect[] = [
      { x: 0, y: 0, width: 200, height: 100 },
      { x: 300, y: 200, width: 200, height: 100 },
    ];
    // A wide pane: the newcomers go to the right of the drawing.
    const placed = placeNewcomers({ drawing: existing, earlier: [], aspect: 3 }, [
      { id: 'n1', width: 180, height: 90 },
      { id: 'n2', width: 180, height: 90 },
    ]);
    const rects = [
      ...existing,
      { ...placed.n1!, width: 180, height: 90 },
      { ...placed.n2!, width: 180, height: 90 },
    ];
    expect(overlapsAmong(rects, DEFAULT_GAP - 1)).toBe(0);
    expect(placed.n1!.x).toBeGreaterThan(500);
  });

  it('grows the drawing in the shape of the pane as newcomers arrive one by one', () => {
    for (const aspect of [0.8, 1.4, 2.5]) {
      const drawing: Rect[] = [{ x: 0, y: 0, width: 210, height: 106 }];
      const earlier: Rect[] = [];
      // A session whose fleet lists nobody: every agent but the first is a newcomer when it first speaks.
      for (let index = 0; index < 8; index += 1) {
        const placed = placeNewcomers({ drawing, earlier, aspect }, [
          { id: `n${index}`, width: 210, height: 106 },
        ]);
        earlier.push({ ...placed[`n${index}`]!, width: 210, height: 106 });
      }
      const rects = [...drawing, ...earlier];
      expect(overlapsAmong(rects, DEFAULT_GAP - 1)).toBe(0);
      const xs = rects.map((rect) => rect.x);
      const ys = rects.map((rect) => rect.y);
      const width = Math.max(...xs) - Math.min(...xs) + 210;
      const height = Math.max(...ys) - Math.min(...ys) + 106;
      // Nine cards in rows and columns, about the pane's shape: not one long column or row.
      expect(width / height, `aspect ${aspect}`).toBeGreaterThan(aspect / 2);
      expect(width / height, `aspect ${aspect}`).toBeLessThan(aspect * 2);
      // Cards, not holes: the cards cover most of what cells twice the gap apart can hold.
      expect((9 * 210 * 106) / (width * height), `aspect ${aspect}`).toBeGreaterThan(0.4);
    }
  });

  it('is deterministic: the same input gives the same positions', () => {
    const nodes = agents(9, 'round-robin');
    expect(layoutGraph(nodes, [], { aspect: 1.3 })).toEqual(layoutGraph(nodes, [], { aspect: 1.3 }));
  });
});
