import { agentColor, BROADCAST, fleetMembers, type FleetInput, type Message } from '@shared/domain';
import { escapeHtml } from './text';

/** Who may speak without being an agent of the fleet: drawn nowhere (the task comes from them). */
const OUTSIDERS = new Set(['user', BROADCAST]);

/** Longest label drawn in a node; longer names are cut with an ellipsis (the full name is its tooltip). */
const MAX_LABEL = 22;
const NODE_HEIGHT = 30;
const CHAR_WIDTH = 7.4;
/** Broadcast fans are left out of larger graphs: too many lines (the count badge stays). */
const MAX_FAN_NODES = 30;

interface EdgeTally {
  from: string;
  to: string;
  count: number;
}

/** Agents of a fleet in the app's order: depth first, a team followed by its members (`team/name`). */
export function fleetAgentNames(fleet: FleetInput | null): string[] {
  return fleet ? fleetMembers(fleet).map((member) => member.address) : [];
}

function label(name: string): string {
  return name.length > MAX_LABEL ? `${name.slice(0, MAX_LABEL - 1)}…` : name;
}

function nodeWidth(name: string): number {
  return Math.round(24 + label(name).length * CHAR_WIDTH);
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * A path from one node's border to another's with an arrowhead at the end; `bend` curves it a
 * little so a -> b and b -> a stay apart. Empty when either node has no position.
 */
function arrow(
  from: string,
  to: string,
  position: Map<string, { x: number; y: number }>,
  width: number,
  bend: boolean,
): string {
  const a = position.get(from);
  const b = position.get(to);
  if (!a || !b) return '';
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  // Start and end on the boxes' borders (plus a small gap), never inside a box.
  const exit = (name: string) => {
    const halfWidth = nodeWidth(name) / 2;
    const halfHeight = NODE_HEIGHT / 2;
    const along = Math.min(
      Math.abs(ux) > 1e-6 ? halfWidth / Math.abs(ux) : Infinity,
      Math.abs(uy) > 1e-6 ? halfHeight / Math.abs(uy) : Infinity,
    );
    return Math.min(along + 4, length / 2.5);
  };
  const start = { x: a.x + ux * exit(from), y: a.y + uy * exit(from) };
  const end = { x: b.x - ux * exit(to), y: b.y - uy * exit(to) };
  const offset = bend ? Math.min(30, length * 0.12) : 0;
  const control = { x: (start.x + end.x) / 2 - uy * offset, y: (start.y + end.y) / 2 + ux * offset };
  // The arrowhead points along the curve's last tangent (control point to end), sized by the stroke.
  const tx = end.x - control.x;
  const ty = end.y - control.y;
  const tangent = Math.hypot(tx, ty) || 1;
  const hx = tx / tangent;
  const hy = ty / tangent;
  const size = 6 + width * 1.5;
  const back = { x: end.x - hx * size, y: end.y - hy * size };
  const head = [
    [end.x, end.y],
    [back.x - hy * size * 0.55, back.y + hx * size * 0.55],
    [back.x + hy * size * 0.55, back.y - hx * size * 0.55],
  ]
    .map(([x, y]) => `${round(x ?? 0)},${round(y ?? 0)}`)
    .join(' ');
  return (
    `<path d="M${round(start.x)},${round(start.y)} Q${round(control.x)},${round(control.y)} ${round(back.x)},${round(back.y)}" stroke-width="${width}"/>` +
    `<polygon points="${head}"/>`
  );
}

/**
 * Counts who spoke to whom while the export streams, then draws the session's graph as a static
 * SVG: agents on a ring in the fleet's order, one directed edge per pair weighted by its message
 * count, broadcasts as a count on the speaker. Nodes and edges carry `data-agent` / `data-from`
 * and `data-to` so the replay script can highlight the speaker and the message's path.
 */
export class SessionGraphTally {
  private readonly order: string[];
  private readonly colors = new Map<string, string>();
  private readonly edges = new Map<string, EdgeTally>();
  private readonly broadcasts = new Map<string, number>();
  private readonly messages = new Map<string, number>();

  constructor(fleet: FleetInput | null) {
    this.order = [...new Set(fleetAgentNames(fleet))];
    this.order.forEach((name, index) => this.colors.set(name, agentColor(name, index)));
  }

  private node(name: string): void {
    if (OUTSIDERS.has(name) || this.colors.has(name)) return;
    this.order.push(name);
    this.colors.set(name, agentColor(name, -1));
  }

  add(message: Pick<Message, 'from' | 'to'>): void {
    const { from, to } = message;
    if (OUTSIDERS.has(from)) {
      this.node(to);
      return;
    }
    this.node(from);
    this.messages.set(from, (this.messages.get(from) ?? 0) + 1);
    if (to === BROADCAST) {
      this.broadcasts.set(from, (this.broadcasts.get(from) ?? 0) + 1);
      return;
    }
    this.node(to);
    if (OUTSIDERS.has(to) || to === from) return;
    const key = JSON.stringify([from, to]);
    const edge = this.edges.get(key) ?? { from, to, count: 0 };
    edge.count += 1;
    this.edges.set(key, edge);
  }

  /** The SVG, sized by its viewBox; it scales to the width of its container. */
  svg(): string {
    const names = this.order;
    const count = names.length;
    if (count === 0) return '<p class="no-graph">No agents spoke in this session.</p>';
    const widest = Math.max(...names.map(nodeWidth));
    // A ring wide enough that neighbouring nodes do not touch.
    const radius =
      count === 1 ? 0 : Math.max(70, ((widest + 24) * count) / (2 * Math.PI), (NODE_HEIGHT + 24) * 1.2);
    const position = new Map<string, { x: number; y: number }>();
    names.forEach((name, index) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * index) / Math.max(1, count);
      position.set(name, { x: round(radius * Math.cos(angle)), y: round(radius * Math.sin(angle)) });
    });
    const margin = 12;
    const half = widest / 2 + margin;
    const view = [
      -radius - half,
      -radius - NODE_HEIGHT - margin,
      2 * (radius + half),
      2 * (radius + NODE_HEIGHT + margin),
    ];
    const parts: string[] = [
      `<svg viewBox="${view.map(round).join(' ')}" role="img" aria-labelledby="graph-title">`,
      '<title id="graph-title">Who spoke to whom</title>',
    ];
    for (const edge of this.edges.values()) parts.push(this.edgePath(edge, position));
    if (count <= MAX_FAN_NODES)
      for (const speaker of this.broadcasts.keys()) parts.push(this.fan(speaker, position));
    for (const name of names) parts.push(this.nodeGroup(name, position.get(name) ?? { x: 0, y: 0 }));
    parts.push('</svg>');
    return parts.join('\n');
  }

  private edgePath(edge: EdgeTally, position: Map<string, { x: number; y: number }>): string {
    const width = round(Math.min(6, 1.2 + Math.log2(1 + edge.count)));
    const title = `${edge.from} → ${edge.to}: ${edge.count} ${edge.count === 1 ? 'message' : 'messages'}`;
    const drawn = arrow(edge.from, edge.to, position, width, true);
    if (!drawn) return '';
    return (
      `<g class="edge" data-from="${escapeHtml(edge.from)}" data-to="${escapeHtml(edge.to)}"><title>${escapeHtml(title)}</title>` +
      `${drawn}</g>`
    );
  }

  /**
   * Arrows from a speaker to everyone else: drawn faintly always (a broadcast reaches them all),
   * fully while one of its broadcasts replays.
   */
  private fan(speaker: string, position: Map<string, { x: number; y: number }>): string {
    const count = this.broadcasts.get(speaker) ?? 0;
    const title = `${speaker} → everyone: ${count} ${count === 1 ? 'broadcast' : 'broadcasts'}`;
    const arrows = this.order
      .filter((name) => name !== speaker)
      .map((name) => arrow(speaker, name, position, 1.5, false));
    return `<g class="fan" data-from="${escapeHtml(speaker)}"><title>${escapeHtml(title)}</title>${arrows.join('')}</g>`;
  }

  private nodeGroup(name: string, at: { x: number; y: number }): string {
    const width = nodeWidth(name);
    const color = this.colors.get(name) ?? agentColor(name, -1);
    const spoke = this.messages.get(name) ?? 0;
    const broadcasts = this.broadcasts.get(name) ?? 0;
    const about = [
      `${spoke} ${spoke === 1 ? 'message' : 'messages'}`,
      broadcasts > 0 ? `${broadcasts} to everyone` : '',
    ].filter(Boolean);
    const badge =
      broadcasts > 0
        ? `<text class="badge" x="${round(at.x)}" y="${round(at.y + NODE_HEIGHT / 2 + 12)}">${broadcasts} to everyone</text>`
        : '';
    return (
      `<g class="node" data-agent="${escapeHtml(name)}" style="--agent:${color}">` +
      `<title>${escapeHtml(`${name}: ${about.join(', ')}`)}</title>` +
      `<rect x="${round(at.x - width / 2)}" y="${round(at.y - NODE_HEIGHT / 2)}" width="${width}" height="${NODE_HEIGHT}" rx="8"/>` +
      `<text x="${round(at.x)}" y="${round(at.y + 4.5)}">${escapeHtml(label(name))}</text>${badge}</g>`
    );
  }
}
