import { nextTick, onBeforeUnmount, reactive, ref, watch, type Ref } from 'vue';
import { useVueFlow, type GraphNode } from '@vue-flow/core';
import type { AgentNodeData, GraphModel, GraphNodeModel, MessageEdgeData } from '../session/graph-mapper';
import type { AgentFlowNode, GraphNodeType, MessageFlowEdge } from './flow-types';
import { STREAM_INTERVAL_MS, StreamThrottle } from './stream-throttle';
import {
  layeredByEdges,
  layoutGraph,
  placeNewcomers,
  type LayoutNode,
  type Point,
  type Rect,
  type Size,
} from './pattern-layout';
import { loadLayout } from './layout';

/** The graph's life: nothing yet, laid out but hidden while measured, shown. */
export type GraphPhase = 'empty' | 'measuring' | 'ready';

export interface GraphSyncOptions {
  flowId: string;
  fleetName: Readonly<Ref<string>>;
  sessionId: Readonly<Ref<string | null>>;
  /** The pane's width / height when a layout is made (rings and grids take its shape). */
  aspect: () => number;
  /**
   * False while the session's log is still loading. Only a layout that is drawn from the edges
   * seen (a swarm, a team of unknown pattern) and has none yet waits for it (up to SETTLE_MS):
   * every other layout comes from the fleet's team alone and is shown as soon as it is measured,
   * whatever the length of the log.
   */
  settled: Readonly<Ref<boolean>>;
  /** Called once the measured layout is in place (fit the view, then show it). */
  onLaidOut: () => void;
  /** Model to draw again when held-back streaming text is due. */
  current: () => GraphModel | undefined;
}

/** The longest a layout that needs edges waits for the log to load before it is shown anyway. */
export const SETTLE_MS = 400;

/**
 * Whether the layout of `model` may still change with edges it does not have yet: it places a
 * swarm or a team of unknown pattern by the edges seen, and none is known so far (the first draw
 * of a long session has its edges from a separate query, or from the log once loaded).
 */
export function awaitsEdges(model: GraphModel | undefined): boolean {
  if (!model || model.edges.length > 0) return false;
  return model.nodes.some((node) => {
    const pattern = node.data.slot?.pattern;
    return pattern === 'swarm' || pattern === 'unknown';
  });
}

/** A size to lay out with before the browser has measured a node. */
export function estimateSize(data: AgentNodeData): Size {
  if (data.kind === 'hub') return { width: 120, height: 56 };
  const text = Math.max(
    data.name.length * 8.6 + 48,
    data.compact ? 0 : Math.min(data.role.length, 48) * 6.4 + 36,
  );
  const width = Math.round(
    data.compact ? Math.min(228, Math.max(168, text)) : Math.min(340, Math.max(210, text)),
  );
  return { width, height: data.compact ? 74 : data.role || data.model ? 106 : 90 };
}

function typeOf(data: AgentNodeData): GraphNodeType {
  return data.kind;
}

function dimensionsOf(node: GraphNode | undefined, fallback: Size): Size {
  const width = node?.dimensions.width ?? 0;
  const height = node?.dimensions.height ?? 0;
  return width > 0 && height > 0 ? { width, height } : fallback;
}

/**
 * Keeps Vue Flow's nodes and edges in step with the graph model. Positions come from the team
 * pattern once per session and fleet (then with the measured sizes), from the user's saved
 * arrangement, or, for agents that appear later, beside the drawing: nothing moves when a
 * message arrives. Node data changes are patched in place; streaming text goes to `streams`,
 * for all nodes together at most every STREAM_INTERVAL_MS.
 */
export function useGraphSync(options: GraphSyncOptions) {
  const flow = useVueFlow(options.flowId);
  const phase = ref<GraphPhase>('empty');
  /**
   * The text each agent is streaming, by node id, read by its node directly: a chunk of text
   * updates one text node, without a node-data change running through Vue Flow's graph.
   */
  const streams = reactive(new Map<string, string>());
  let layoutKey = '';
  let drawn = new Map<string, GraphNodeModel>();
  const remembered = new Map<string, Point>();
  /** The nodes the last layout placed (those that came later are placed beside them). */
  let laidOut = new Set<string>();
  const throttle = new StreamThrottle();
  let trailing: ReturnType<typeof setTimeout> | null = null;
  let fallback: ReturnType<typeof setTimeout> | null = null;
  let lastEdgeData = new Map<string, string>();
  /** When the browser reported the sizes of a layout still waiting for the log (0: none). */
  let measuredAt = 0;

  function layoutNodes(models: readonly GraphNodeModel[], measured: boolean): LayoutNode[] {
    return models.map((model) => {
      const size = measured
        ? dimensionsOf(
            model.data.kind === 'team' ? undefined : flow.findNode(model.id),
            estimateSize(model.data),
          )
        : estimateSize(model.data);
      return {
        id: model.id,
        parent: model.parent,
        ...size,
        slot: model.data.slot,
        hub: model.data.kind === 'hub',
      };
    });
  }

  /** The session whose graph is laid out in layers by message flow (Auto layout on a big graph). */
  let layeredFor: string | null = null;

  function place(models: readonly GraphNodeModel[], measured: boolean, edges: GraphModel['edges']) {
    const layout =
      layeredFor !== null && layeredFor === options.sessionId.value ? layeredByEdges : layoutGraph;
    const result = layout(layoutNodes(models, measured), edges, { aspect: options.aspect() });
    laidOut = new Set(models.map((model) => model.id));
    const saved = loadLayout(options.fleetName.value);
    for (const model of models) {
      const at = saved[model.id] ?? result.positions[model.id] ?? { x: 0, y: 0 };
      remembered.set(model.id, at);
    }
    return result.groupSizes;
  }

  function flowNode(model: GraphNodeModel, groupSizes: Record<string, Size>): AgentFlowNode {
    const size = groupSizes[model.id];
    return {
      id: model.id,
      type: typeOf(model.data),
      position: remembered.get(model.id) ?? { x: 0, y: 0 },
      // Streaming text goes through `streams`, not through Vue Flow's node data.
      data: { ...model.data, streaming: '' },
      ...(model.parent ? { parentNode: model.parent, extent: 'parent' as const } : {}),
      ...(size ? { style: { width: `${size.width}px`, height: `${size.height}px` } } : {}),
    };
  }

  /** A new session or fleet: lay out from the pattern with estimated sizes, hidden, then measure. */
  function rebuild(model: GraphModel): void {
    phase.value = 'measuring';
    measuredAt = 0;
    remembered.clear();
    const groupSizes = place(model.nodes, false, model.edges);
    flow.setNodes(model.nodes.map((node) => flowNode(node, groupSizes)));
    drawn = new Map(model.nodes.map((node) => [node.id, node]));
    flow.setEdges([]);
    lastEdgeData = new Map();
    markSent(model);
    if (fallback) clearTimeout(fallback);
    // Should the browser never report sizes (a hidden pane), show the estimated layout anyway.
    fallback = setTimeout(() => finishLayout(false), 1500);
  }

  /** The pane shape (width / height) the current layout was made for. */
  let laidOutFor = 1;

  function applyLayout(measured: boolean): void {
    laidOutFor = options.aspect();
    const models = [...drawn.values()];
    const groupSizes = place(models, measured, options.current()?.edges ?? []);
    for (const model of models) {
      const size = groupSizes[model.id];
      flow.updateNode(model.id, {
        position: remembered.get(model.id) ?? { x: 0, y: 0 },
        ...(size ? { style: { width: `${size.width}px`, height: `${size.height}px` } } : {}),
      });
    }
  }

  /**
   * The pane changed shape a lot since the layout was made (the header around it grew, the
   * window was resized): lay out again for the new shape. Callers do this only while nobody has
   * moved the view and no run is live, so nothing jumps under a reader or while messages arrive.
   */
  function reshape(): boolean {
    if (phase.value !== 'ready') return false;
    const now = options.aspect();
    if (Math.abs(Math.log(now / laidOutFor)) < Math.log(1.2)) return false;
    applyLayout(true);
    return true;
  }

  /** Lays out again with the sizes the browser measured, then hands over to fit and show. */
  function finishLayout(measured: boolean): void {
    if (phase.value !== 'measuring') return;
    if (fallback) clearTimeout(fallback);
    fallback = null;
    measuredAt = 0;
    applyLayout(measured);
    void nextTick(() =>
      requestAnimationFrame(() => {
        phase.value = 'ready';
        options.onLaidOut();
      }),
    );
  }

  flow.onNodesInitialized(() => {
    if (phase.value !== 'measuring') return;
    if (options.settled.value || !awaitsEdges(options.current())) return finishLayout(true);
    measuredAt = performance.now();
    if (fallback) clearTimeout(fallback);
    fallback = setTimeout(() => finishLayout(true), SETTLE_MS);
  });
  watch(options.settled, (settled) => {
    if (settled && measuredAt > 0 && phase.value === 'measuring') finishLayout(true);
  });

  /** Agents that appear or vanish (a seek) without a new layout: nothing else moves. */
  function reconcile(model: GraphModel): void {
    const wanted = new Map(model.nodes.map((node) => [node.id, node]));
    const gone = [...drawn.keys()].filter((id) => !wanted.has(id));
    if (gone.length > 0) flow.removeNodes(gone);
    const fresh = model.nodes.filter((node) => !drawn.has(node.id));
    if (fresh.length > 0) {
      const unplaced = fresh.filter((node) => !remembered.has(node.id));
      const drawing: Rect[] = [];
      const earlier: Rect[] = [];
      for (const node of flow.getNodes.value) {
        if (node.parentNode) continue;
        const rect = { ...node.computedPosition, ...dimensionsOf(node, { width: 210, height: 110 }) };
        (laidOut.has(node.id) ? drawing : earlier).push(rect);
      }
      const placed = placeNewcomers(
        { drawing, earlier, aspect: options.aspect() },
        unplaced.map((node) => ({ id: node.id, ...estimateSize(node.data) })),
      );
      const saved = loadLayout(options.fleetName.value);
      for (const node of unplaced)
        remembered.set(node.id, saved[node.id] ?? placed[node.id] ?? { x: 0, y: 0 });
      // Newcomers have no slot, so they never sit inside a group.
      flow.addNodes(fresh.map((node) => flowNode({ ...node, parent: null }, {})));
    }
    drawn = wanted;
  }

  function markSent(model: GraphModel): void {
    throttle.reset();
    streams.clear();
    for (const node of model.nodes) {
      throttle.mark(node.id, node.data);
      setStream(node.id, node.data.streaming);
    }
  }

  function setStream(id: string, text: string): void {
    if (text) streams.set(id, text);
    else streams.delete(id);
  }

  function patchData(model: GraphModel): void {
    throttle.begin(performance.now());
    for (const node of model.nodes) {
      const due = throttle.due(node.id, node.data);
      if (due.rest) flow.updateNodeData<AgentNodeData>(node.id, { ...node.data, streaming: '' });
      if (due.tail) setStream(node.id, node.data.streaming);
    }
    if (throttle.pending && !trailing) {
      // The stream may pause after this frame: send the held-back tails once the interval ends.
      trailing = setTimeout(() => {
        trailing = null;
        sync(options.current());
      }, STREAM_INTERVAL_MS);
    }
  }

  function syncEdges(model: GraphModel): void {
    const wanted = new Set(model.edges.map((edge) => edge.id));
    const gone = [...lastEdgeData.keys()].filter((id) => !wanted.has(id));
    if (gone.length > 0) {
      flow.removeEdges(gone);
      for (const id of gone) lastEdgeData.delete(id);
    }
    const added: MessageFlowEdge[] = [];
    for (const edge of model.edges) {
      const serialized = JSON.stringify(edge.data);
      const previous = lastEdgeData.get(edge.id);
      if (previous === serialized) continue;
      lastEdgeData.set(edge.id, serialized);
      if (previous === undefined || !flow.findEdge(edge.id))
        added.push({
          id: edge.id,
          source: edge.source,
          target: edge.target,
          type: 'message',
          data: edge.data,
          selectable: true,
        });
      else flow.updateEdgeData<MessageEdgeData>(edge.id, edge.data);
    }
    if (added.length > 0) flow.addEdges(added);
  }

  function sync(model: GraphModel | undefined): void {
    if (!model) return;
    // The layout is made once per session and set of fleet agents (and hubs); other changes
    // never move what is drawn.
    const key = [
      options.sessionId.value ?? '',
      ...model.nodes.filter((node) => node.data.slot || node.data.kind === 'hub').map((node) => node.id),
    ].join('\n');
    if (key !== layoutKey) {
      layoutKey = key;
      rebuild(model);
    } else {
      const sameSet = model.nodes.length === drawn.size && model.nodes.every((node) => drawn.has(node.id));
      if (!sameSet) reconcile(model);
      patchData(model);
      // Measured and waiting only for edges: they have come.
      if (phase.value === 'measuring' && measuredAt > 0 && !awaitsEdges(model)) finishLayout(true);
    }
    syncEdges(model);
  }

  /**
   * Forgets the layout (and the saved arrangement is cleared by the caller): lay out afresh, from
   * the team pattern, or with `layers` in layers along the messages sent.
   */
  function relayout(layers = false): void {
    layeredFor = layers ? options.sessionId.value : null;
    layoutKey = '';
    sync(options.current());
  }

  /** Whether the graph on show is laid out in layers by message flow. */
  const layered = () => layeredFor !== null && layeredFor === options.sessionId.value;

  /** Positions as they are now (after a drag), by node id, for saving. */
  function currentPositions(): Record<string, Point> {
    const positions: Record<string, Point> = {};
    for (const node of flow.getNodes.value) {
      positions[node.id] = { x: Math.round(node.position.x), y: Math.round(node.position.y) };
      remembered.set(node.id, positions[node.id]!);
    }
    return positions;
  }

  onBeforeUnmount(() => {
    if (trailing) clearTimeout(trailing);
    if (fallback) clearTimeout(fallback);
  });

  return { phase, streams, sync, relayout, layered, reshape, currentPositions };
}
