import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';

/** The window sizes and colour schemes the graph is checked in. */
export const GRAPH_SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;
export const GRAPH_THEMES = ['light', 'dark'] as const;

/** One step of a scripted agent's script. */
type ScriptStep = { content: string; chunkSize?: number; delayMs?: number };

/**
 * A selector team of four scripted agents (planner, coder, critic, tester) that the graph draws at
 * the corners round its hub; each agent says its one step, over and over, until 7 messages.
 */
export function selectorHubFleet(name: string, step: (agent: string) => ScriptStep): FleetInput {
  return {
    version: 1,
    name,
    agents: ['planner', 'coder', 'critic', 'tester'].map((agent) => ({
      name: agent,
      type: 'scripted' as const,
      role: `${agent} of the team`,
      script: [step(agent)],
      loop: true,
    })),
    team: { pattern: 'selector', rules: [{ contains: 'planner', candidates: ['coder'] }] },
    termination: { type: 'max-messages', max: 7 },
  };
}

/**
 * A sequential fleet round a nested team: a lead, a team of three (a round robin, drawn as a
 * group much bigger than a card) and a writer, each saying its one step.
 */
export function nestedTeamFleet(name: string, step: (agent: string) => ScriptStep): FleetInput {
  return {
    version: 1,
    name,
    agents: [
      { name: 'lead', type: 'scripted', role: 'sets the question', script: [step('lead')] },
      {
        name: 'research',
        type: 'team',
        role: 'three researchers',
        fleet: {
          version: 1,
          name: 'research',
          agents: ['reader', 'checker', 'summarizer'].map((agent) => ({
            name: agent,
            type: 'scripted' as const,
            role: agent,
            script: [step(agent)],
          })),
          team: { pattern: 'round-robin' },
          termination: { type: 'max-messages', max: 3 },
        },
      },
      { name: 'writer', type: 'scripted', role: 'writes it up', script: [step('writer')] },
    ],
    team: { pattern: 'sequential' },
    termination: { type: 'max-messages', max: 8 },
  };
}

/** What the layout-quality checks found on the session graph as it is drawn now. */
export interface GraphMeasure {
  nodes: number;
  /** Pairs of boxes that overlap (a group and its own members excepted). */
  overlaps: string[];
  /** Boxes not wholly inside the graph pane. */
  outside: string[];
  /** Boxes under the toolbar, the zoom controls, the minimap or the legend. */
  covered: string[];
  /** Labels whose text does not fit their box, or that stick out of their node. */
  clipped: string[];
  /** Edges whose line runs through the inside of a card that is neither of its ends (nor holds one). */
  edgesThroughCards: string[];
  /** How many edges were drawn and walked for `edgesThroughCards`. */
  edgesChecked: number;
  /** Arrowheads under an edge's count label or within 2 px of one (which way the edge points is lost). */
  crowdedArrows: string[];
  /** The view's zoom and the smallest agent name as drawn, in CSS pixels. */
  zoom: number;
  smallestNamePx: number;
  /** The smallest edge count label as drawn, in CSS pixels (Infinity without one). */
  smallestEdgeLabelPx: number;
  /** Pairs of edge labels that overlap ("1" drawn over "2"). */
  stackedLabels: string[];
  /** How much of the pane the drawing spans (the larger of its width and height share). */
  fill: number;
  /**
   * How much of the drawing's bounding box its outermost cards cover (a group counts whole, its
   * members not again): a layout with cards adrift in big holes covers little.
   */
  coverage: number;
  minimapShown: boolean;
}

/**
 * Measures the session graph in the page with getBoundingClientRect: every node, label and
 * overlay as the browser draws it.
 */
export function measureGraph(page: Page): Promise<GraphMeasure> {
  return page.evaluate(() => {
    const graph = document.querySelector<HTMLElement>('[data-testid="agent-graph"]');
    if (!graph) throw new Error('no graph');
    const pane = graph.getBoundingClientRect();
    const boxes = Array.from(graph.querySelectorAll<HTMLElement>('.vue-flow__node')).map((element) => ({
      id: element.dataset.id ?? '?',
      rect: element.getBoundingClientRect(),
    }));
    const intersects = (a: DOMRect, b: DOMRect) =>
      a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const contains = (outer: string, inner: string) => inner.startsWith(`${outer}/`);
    const overlaps: string[] = [];
    for (let i = 0; i < boxes.length; i += 1)
      for (let j = i + 1; j < boxes.length; j += 1) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        if (contains(a.id, b.id) || contains(b.id, a.id)) continue;
        if (intersects(a.rect, b.rect)) overlaps.push(`${a.id} × ${b.id}`);
      }
    const outside = boxes
      .filter(
        ({ rect }) =>
          rect.left < pane.left - 0.5 ||
          rect.top < pane.top - 0.5 ||
          rect.right > pane.right + 0.5 ||
          rect.bottom > pane.bottom + 0.5,
      )
      .map(({ id }) => id);
    const overlays = [
      ['toolbar', '[data-testid="graph-toolbar"]'],
      ['controls', '.vue-flow__controls'],
      ['minimap', '.vue-flow__minimap'],
      ['legend', '[data-testid="graph-legend"]'],
    ] as const;
    const covered: string[] = [];
    for (const [name, selector] of overlays) {
      const overlay = graph.querySelector(selector)?.getBoundingClientRect();
      if (!overlay || overlay.width === 0) continue;
      for (const { id, rect } of boxes) if (intersects(rect, overlay)) covered.push(`${id} under ${name}`);
    }
    const clipped: string[] = [];
    for (const label of Array.from(graph.querySelectorAll<HTMLElement>('[data-label]'))) {
      const text = (label.textContent ?? '').trim().slice(0, 40);
      if (label.scrollWidth > label.clientWidth + 1 || label.scrollHeight > label.clientHeight + 1)
        clipped.push(
          `"${text}" ${label.scrollWidth}x${label.scrollHeight} in ${label.clientWidth}x${label.clientHeight}`,
        );
      const node = label.closest<HTMLElement>('.vue-flow__node');
      if (!node) continue;
      const own = label.getBoundingClientRect();
      const box = node.getBoundingClientRect();
      // Tabs sit on the border on purpose; everything else stays inside its node.
      const slack = label.classList.contains('tab') ? 12 : 1;
      if (
        own.left < box.left - slack ||
        own.right > box.right + slack ||
        own.top < box.top - slack ||
        own.bottom > box.bottom + slack
      )
        clipped.push(`"${text}" sticks out of its node`);
    }
    const labelRects = Array.from(
      graph.querySelectorAll<HTMLElement>('[data-testid="edge-label"]'),
      (label) => ({
        text: (label.textContent ?? '').trim(),
        rect: label.getBoundingClientRect(),
      }),
    );
    const crowdedArrows: string[] = [];
    for (const arrow of Array.from(graph.querySelectorAll<SVGPolygonElement>('polygon.edge-arrow'))) {
      const own = arrow.getBoundingClientRect();
      const edge = arrow.closest<HTMLElement>('.vue-flow__edge')?.dataset.id ?? '?';
      for (const { text, rect } of labelRects) {
        // A label over the arrowhead, or within 2 px of it, crowds out which way the edge points.
        const width = Math.min(own.right, rect.right + 2) - Math.max(own.left, rect.left - 2);
        const height = Math.min(own.bottom, rect.bottom + 2) - Math.max(own.top, rect.top - 2);
        if (width > 0 && height > 0) crowdedArrows.push(`the arrow of ${edge} crowded by "${text}"`);
      }
    }
    const edgesThroughCards: string[] = [];
    let edgesChecked = 0;
    const holds = (id: string, member: string) => id === member || member.startsWith(`${id}/`);
    for (const edge of Array.from(graph.querySelectorAll<SVGGElement>('.vue-flow__edge'))) {
      const id = edge.dataset.id ?? '';
      const ends = /^[a-z]+:(.+)->(.+)$/.exec(id);
      const line = edge.querySelector<SVGPathElement>('path.vue-flow__edge-path');
      const matrix = line?.getScreenCTM();
      if (!ends || !line || !matrix) continue;
      edgesChecked += 1;
      const others = boxes.filter((box) => !holds(box.id, ends[1]!) && !holds(box.id, ends[2]!));
      const length = line.getTotalLength();
      const steps = Math.max(2, Math.ceil((length * matrix.a) / 2));
      for (let step = 0; step <= steps; step += 1) {
        const local = line.getPointAtLength((length * step) / steps);
        const { x, y } = new DOMPoint(local.x, local.y).matrixTransform(matrix);
        const hit = others.find(
          ({ rect }) => x > rect.left + 1 && x < rect.right - 1 && y > rect.top + 1 && y < rect.bottom - 1,
        );
        if (!hit) continue;
        edgesThroughCards.push(`${id} through ${hit.id}`);
        break;
      }
    }
    const transform =
      graph.querySelector<HTMLElement>('.vue-flow__transformationpane')?.style.transform ?? '';
    const zoom = Number(/scale\(([\d.]+)\)/.exec(transform)?.[1] ?? 1);
    const names = Array.from(graph.querySelectorAll<HTMLElement>('[data-testid="agent-name"]'));
    const smallestNamePx = Math.min(
      ...names.map((name) => parseFloat(getComputedStyle(name).fontSize) * zoom),
    );
    const edgeLabels = Array.from(graph.querySelectorAll<HTMLElement>('[data-testid="edge-label"]'));
    // Edge labels live in a layer scaled with the view: their font size times the zoom.
    const smallestEdgeLabelPx = Math.min(
      ...edgeLabels.map((label) => parseFloat(getComputedStyle(label).fontSize) * zoom),
    );
    const stackedLabels: string[] = [];
    for (let i = 0; i < labelRects.length; i += 1)
      for (let j = i + 1; j < labelRects.length; j += 1)
        if (intersects(labelRects[i]!.rect, labelRects[j]!.rect))
          stackedLabels.push(`"${labelRects[i]!.text}" over "${labelRects[j]!.text}"`);
    const left = Math.min(...boxes.map(({ rect }) => rect.left));
    const right = Math.max(...boxes.map(({ rect }) => rect.right));
    const top = Math.min(...boxes.map(({ rect }) => rect.top));
    const bottom = Math.max(...boxes.map(({ rect }) => rect.bottom));
    return {
      nodes: boxes.length,
      overlaps,
      outside,
      covered,
      clipped,
      crowdedArrows,
      edgesThroughCards,
      edgesChecked,
      zoom,
      smallestNamePx,
      smallestEdgeLabelPx,
      stackedLabels,
      fill: Math.max((right - left) / pane.width, (bottom - top) / pane.height),
      coverage:
        boxes
          .filter((box) => !boxes.some((other) => contains(other.id, box.id)))
          .reduce((sum, { rect }) => sum + rect.width * rect.height, 0) /
        Math.max(1, (right - left) * (bottom - top)),
      minimapShown: !!graph.querySelector('.vue-flow__minimap'),
    };
  });
}

/** Opens a session from the list and resolves once its graph is laid out, fitted and still. */
export async function openGraph(page: Page, sessionId: string): Promise<void> {
  await page.evaluate(() => (window.location.hash = '#/sessions'));
  await page.getByTestId('session-view').waitFor({ state: 'detached' });
  await page.evaluate((id) => (window.location.hash = `#/sessions/${encodeURIComponent(id)}`), sessionId);
  await page.locator(`[data-testid="session-view"][data-session-id="${sessionId}"]`).waitFor();
  await page.getByTestId('session-loading').waitFor({ state: 'detached', timeout: 30_000 });
  await page.locator('[data-testid="agent-graph"][data-phase="ready"]').waitFor({ timeout: 15_000 });
  await settle(page);
}

/** Waits until the graph's transform and node boxes hold still across two frames. */
export async function settle(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        const snapshot = () =>
          [
            document.querySelector<HTMLElement>('.vue-flow__transformationpane')?.style.transform ?? '',
            ...Array.from(document.querySelectorAll('.vue-flow__node'), (node) => {
              const rect = node.getBoundingClientRect();
              return `${Math.round(rect.left)},${Math.round(rect.top)},${Math.round(rect.width)}`;
            }),
          ].join('|');
        const before = snapshot();
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(snapshot() === before)));
      }),
    undefined,
    { timeout: 10_000, polling: 100 },
  );
}

/** Every card's box on screen, by node id, rounded to whole pixels: what a reader sees move. */
export function cardRects(page: Page): Promise<Record<string, { x: number; y: number; width: number }>> {
  return page.evaluate(() => {
    const out: Record<string, { x: number; y: number; width: number }> = {};
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('.vue-flow__node'))) {
      const rect = node.getBoundingClientRect();
      out[node.dataset.id ?? '?'] = {
        x: Math.round(rect.left),
        y: Math.round(rect.top),
        width: Math.round(rect.width),
      };
    }
    return out;
  });
}
