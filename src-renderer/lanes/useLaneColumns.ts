import { computed, type ComputedRef, type Ref } from 'vue';
import { USER, type AgentStatus } from '@shared/domain';
import type { AgentInfo } from '../session/graph-mapper';
import type { SessionDisplay } from '../session/display';
import { agentColor } from '../session/agent-colors';
import { GUTTER, laneWidth } from './lane-geometry';
import { laneOrder, type LanesModel } from './lanes-model';
import type { LaneColumn } from './row-drawing';

export interface LaneColumnsSource {
  /** The lanes model, triggered when it grows in place (lanes store). */
  model: Readonly<Ref<LanesModel | null>>;
  agents: Ref<AgentInfo[]>;
  display: Ref<SessionDisplay | null>;
  /** Width of the lens in pixels. */
  paneWidth: Ref<number>;
}

export interface LaneColumns {
  names: ComputedRef<readonly string[]>;
  width: ComputedRef<number>;
  totalWidth: ComputedRef<number>;
  columns: ComputedRef<ReadonlyMap<string, LaneColumn>>;
  /** Each lane's status at the playhead (none for the person who gave the task). */
  statuses: ComputedRef<Readonly<Record<string, AgentStatus>>>;
}

/**
 * The lanes left to right, their width and colours, and each agent's status at the playhead.
 * Every value keeps its identity while its content is unchanged, so a live run that only moves
 * the playhead does not redraw the lane heads (names, widths and colours are worked out once).
 */
export function useLaneColumns(source: LaneColumnsSource): LaneColumns {
  const { model, agents, display, paneWidth } = source;
  const fleetNames = computed(() => agents.value.map((agent) => agent.name));

  let lastNames: readonly string[] = [];
  const names = computed(() => {
    const next = laneOrder(fleetNames.value, model.value?.names ?? []);
    if (next.length === lastNames.length && next.every((name, index) => name === lastNames[index]))
      return lastNames;
    lastNames = next;
    return next;
  });

  const widths = new Map<string, number>();
  let measurer: CanvasRenderingContext2D | null | undefined;
  /** Pixels a lane head needs for its name: the bold text, the swatch and the padding. */
  function headWidth(name: string): number {
    const known = widths.get(name);
    if (known !== undefined) return known;
    if (measurer === undefined) {
      measurer = document.createElement('canvas').getContext('2d');
      if (measurer) measurer.font = `700 13px ${getComputedStyle(document.body).fontFamily}`;
    }
    const width = (measurer ? measurer.measureText(name).width : name.length * 8) + 24;
    widths.set(name, width);
    return width;
  }
  const widestName = computed(() => names.value.reduce((most, name) => Math.max(most, headWidth(name)), 0));
  const width = computed(() => laneWidth(names.value.length, paneWidth.value, widestName.value));
  const totalWidth = computed(() => GUTTER + names.value.length * width.value);

  const colors = new Map<string, string>();
  const columns = computed(() => {
    const fleet = fleetNames.value;
    const map = new Map<string, LaneColumn>();
    names.value.forEach((name, index) => {
      const key = `${fleet.indexOf(name)}\u0000${name}`;
      let color = colors.get(key);
      if (color === undefined) {
        color = agentColor(name, fleet.indexOf(name));
        colors.set(key, color);
      }
      map.set(name, { name, x: GUTTER + index * width.value + width.value / 2, color });
    });
    return map;
  });

  let lastStatuses: Record<string, AgentStatus> = {};
  let lastKey = '';
  /** As the graph draws them (the same display), so graph and lanes always agree. */
  const statuses = computed(() => {
    const drawn = new Map<string, AgentStatus>();
    for (const node of display.value?.graph.nodes ?? []) drawn.set(node.id, node.data.status);
    const next: Record<string, AgentStatus> = {};
    for (const name of names.value)
      if (name !== USER) next[name] = drawn.get(name) ?? display.value?.agents[name] ?? 'idle';
    const key = JSON.stringify(next);
    if (key === lastKey) return lastStatuses;
    lastKey = key;
    lastStatuses = next;
    return next;
  });

  return { names, width, totalWidth, columns, statuses };
}
