import { inject, ref, watch, type InjectionKey, type Ref } from 'vue';
import type { AgentStatus, UsageFigures } from '@shared/domain';

/** The status line of a node, in plain words. */
export const STATUS_TEXT: Record<AgentStatus, string> = {
  idle: 'idle',
  thinking: 'thinking…',
  streaming: 'speaking',
  'waiting-for-human': 'waiting for you',
  error: 'error',
  done: 'done',
};

/** How much of the streaming tail a node shows: the newest text that fits its activity line. */
export function streamTail(text: string, compact: boolean): string {
  const keep = compact ? 40 : 90;
  return text.length <= keep ? text : `…${text.slice(-keep)}`;
}

/**
 * When nodes and edges pulse: `on` once the graph has been laid out and shown; `floor` is the
 * seq the graph showed before the current update. Only events after it pulse, so opening a
 * session, loading its log or stepping backwards never sets everything pulsing at once.
 */
export interface PulseGate {
  on: Readonly<Ref<boolean>>;
  floor: Readonly<Ref<number>>;
}
export const PULSE_GATE: InjectionKey<PulseGate> = Symbol('graph-pulse-gate');

/**
 * The playhead moving forward by more than this many events at once is a jump (a seek far
 * ahead): the graph then shows where the log is, not what just happened, so nothing pulses.
 * Live frames, play and steps move far less.
 */
export const PULSE_SPAN = 1_000;

/** The gate's floor when the graph moves from showing `shown` to showing `next`. */
export function pulseFloorFor(shown: number, next: number): number {
  return next - shown > PULSE_SPAN ? next : shown;
}

/** The text each agent is streaming now, by node id (see graph-sync.ts). */
export const STREAMS: InjectionKey<ReadonlyMap<string, string>> = Symbol('graph-streams');

/**
 * Tokens, cost and busy time of the model calls the graph shows: per agent, and per edge (the
 * turns of `to` that answered `from`); null where there are none. Each graph provides its own
 * session's figures, so two graphs side by side never show each other's.
 */
export interface GraphUsage {
  agent(name: string): UsageFigures | null;
  edge(from: string, to: string): UsageFigures | null;
}
export const GRAPH_USAGE: InjectionKey<GraphUsage | null> = Symbol('graph-usage');

/** Whether edge labels show the cost of the turns each edge triggered beside its count. */
export const EDGE_COSTS: InjectionKey<Ref<boolean>> = Symbol('graph-edge-costs');

/** The id of the edge under the pointer, or null: a label folded or hidden for room shows whole then. */
export const HOVERED_EDGE: InjectionKey<Ref<string | null>> = Symbol('graph-hovered-edge');

/** Selects the edge with this id as a click on the edge itself would (edge labels call it). */
export const SELECT_EDGE: InjectionKey<(id: string) => void> = Symbol('graph-select-edge');

/**
 * A key that changes when `seq` moves past what the graph showed before, while pulses are on:
 * render the pulse element with it as its `:key` so each new message replays the animation.
 */
export function usePulse(seq: () => number): Ref<number> {
  const gate = inject(PULSE_GATE, null);
  const key = ref(0);
  // Immediate: an edge or node that first appears with a new message pulses for it too.
  watch(
    seq,
    (now) => {
      if (gate?.on.value && now > gate.floor.value) key.value = now;
    },
    { immediate: true },
  );
  return key;
}

/** A label's box in flow coordinates (its centre and size). */
export interface LabelSpot {
  x: number;
  y: number;
  width: number;
  height: number;
}
/**
 * Where each edge's count label sits, by edge id: an edge places its label clear of the labels of
 * the edges whose ids sort before its own (a fixed order, so placements never chase each other).
 */
export const LABEL_SPOTS: InjectionKey<Map<string, LabelSpot>> = Symbol('graph-label-spots');
