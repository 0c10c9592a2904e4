import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { fleetSchema, type AgentSpec, type Fleet, type TeamSpec, type TerminationSpec } from '@shared/domain';
import { useBridge } from '../bridge';
import { TASK_NODE_ID, type CanvasEdgeData, type Position } from './canvas-types';
import {
  addAgent,
  connect,
  disconnect,
  removeAgents,
  renameAgent,
  teamForPattern,
  uniqueName,
} from './fleet-edits';
import { agentOfIssue, checkDraft, nestedPrefix } from './issues';
import { findTemplate } from './templates';
import { fleetToCanvas } from './mapping';
import { layeredPositions } from './auto-layout';
import { createUndoStack } from './undo-stack';
import { useAutosave } from './useAutosave';
import { createFailureReporter } from '../ui/failure';
import { useProvidersStore } from './providers-store';

export type { SaveState } from './useAutosave';

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function emptyFleet(): Fleet {
  return {
    version: 1,
    name: 'Untitled fleet',
    description: '',
    agents: [],
    team: { pattern: 'round-robin' },
    layout: {},
  };
}

function fleetAt(root: Fleet, path: readonly string[]): Fleet | null {
  let fleet: Fleet | undefined = root;
  for (const name of path) fleet = fleet?.agents.find((agent) => agent.name === name)?.fleet;
  return fleet ?? null;
}

/** The fleet being edited: a draft with undo, validation as you type, autosave and run. */
export const useBuilderStore = defineStore('builder', () => {
  const bridge = useBridge();
  const providers = useProvidersStore();
  const fleetId = ref<string | null>(null);
  const root = ref<Fleet | null>(null);
  /** Names of the team agents entered, from the root down. */
  const path = ref<string[]>([]);
  const selected = ref<string[]>([]);
  const selectedEdge = ref<{ source: string; target: string; data: CanvasEdgeData } | null>(null);
  const readOnly = ref(false);
  const history = shallowRef(createUndoStack<string>());
  const historyVersion = ref(0);
  /** Increases each time a fleet is opened, so the canvas frames it once. */
  const openCount = ref(0);
  /** Increases when the canvas should frame the fleet again (after an auto layout). */
  const frameRequests = ref(0);
  let clipboard: AgentSpec[] = [];

  const current = computed(() => (root.value ? fleetAt(root.value, path.value) : null));
  const knownTools = computed(() =>
    providers.tools.length > 0 ? providers.tools.map((tool) => tool.name) : undefined,
  );
  const rootIssues = computed(() =>
    root.value ? checkDraft(root.value, knownTools.value) : { errors: [], warnings: [] },
  );
  const {
    saveState,
    message,
    reset: resetSave,
    scheduleSave,
    saveNow,
  } = useAutosave({ bridge, root, fleetId, readOnly, errorCount: () => rootIssues.value.errors.length });
  const fail = createFailureReporter(message);
  /** Issues of the fleet on screen, with paths relative to it. */
  const issues = computed(() => {
    const prefix = root.value ? nestedPrefix(root.value, path.value) : null;
    if (prefix === null) return { errors: [], warnings: [] };
    const local = (list: typeof rootIssues.value.errors) =>
      list
        .filter((issue) => issue.path.startsWith(prefix))
        .map((issue) => ({ ...issue, path: issue.path.slice(prefix.length) || '(fleet)' }));
    return { errors: local(rootIssues.value.errors), warnings: local(rootIssues.value.warnings) };
  });
  const issuesByAgent = computed(() => {
    const byAgent = new Map<string, string[]>();
    const fleet = current.value;
    if (!fleet) return byAgent;
    for (const issue of issues.value.errors) {
      const name = agentOfIssue(fleet, issue.path);
      if (name) byAgent.set(name, [...(byAgent.get(name) ?? []), issue.message]);
    }
    return byAgent;
  });
  /** Examples run as they are; an edited fleet runs once it is valid and saved. */
  const canRun = computed(
    () => rootIssues.value.errors.length === 0 && fleetId.value !== null && saveState.value !== 'failed',
  );
  const canUndo = computed(() => (historyVersion.value, history.value.canUndo));
  const canRedo = computed(() => (historyVersion.value, history.value.canRedo));
  const selectedAgent = computed(
    () => current.value?.agents.find((agent) => agent.name === selected.value[0]) ?? null,
  );

  function open(id: string | null, fleet: unknown, options: { readOnly?: boolean } = {}): void {
    const parsed = fleetSchema.safeParse(fleet);
    fleetId.value = id;
    root.value = parsed.success ? parsed.data : (clone(fleet) as Fleet);
    path.value = [];
    selected.value = [];
    selectedEdge.value = null;
    readOnly.value = options.readOnly ?? false;
    resetSave();
    history.value = createUndoStack<string>();
    historyVersion.value++;
    openCount.value++;
  }

  /** Leaves the builder (after saving): the next "New fleet" starts empty, never from this draft. */
  function close(): void {
    fleetId.value = null;
    root.value = null;
    path.value = [];
    selected.value = [];
    selectedEdge.value = null;
  }

  /** Applies one user gesture to the fleet on screen; `record: false` for drag moves in progress. */
  let lastCoalesce: { key: string; at: number } | null = null;

  /**
   * Applies one user gesture to the fleet on screen. `record: false` skips undo; edits with the
   * same `coalesce` key within 1.5 s (typing in one field) share one undo step.
   */
  function edit(change: (fleet: Fleet) => void, options: { record?: boolean; coalesce?: string } = {}): void {
    if (!root.value || readOnly.value) return;
    const before = JSON.stringify(root.value);
    const next = clone(root.value);
    const target = fleetAt(next, path.value);
    if (!target) return;
    change(target);
    const after = JSON.stringify(next);
    if (after === before) return;
    const now = Date.now();
    const coalesced =
      options.coalesce !== undefined &&
      lastCoalesce?.key === options.coalesce &&
      now - lastCoalesce.at < 1500;
    lastCoalesce = options.coalesce !== undefined ? { key: options.coalesce, at: now } : null;
    if (options.record !== false && !coalesced) {
      history.value.record(before);
      historyVersion.value++;
    }
    root.value = next;
    scheduleSave();
  }

  function restore(snapshot: string | undefined): void {
    if (snapshot === undefined) return;
    root.value = JSON.parse(snapshot) as Fleet;
    if (!fleetAt(root.value, path.value)) path.value = [];
    const names = new Set(current.value?.agents.map((agent) => agent.name));
    selected.value = selected.value.filter((name) => names.has(name));
    selectedEdge.value = null;
    historyVersion.value++;
    scheduleSave();
  }
  const undo = () => root.value && !readOnly.value && restore(history.value.undo(JSON.stringify(root.value)));
  const redo = () => root.value && !readOnly.value && restore(history.value.redo(JSON.stringify(root.value)));

  function addFromTemplate(templateId: string, position: Position): string | null {
    const template = findTemplate(templateId);
    const fleet = current.value;
    if (!template || !fleet) return null;
    const name = uniqueName(fleet, template.name);
    edit((draft) =>
      addAgent(draft, { name, ...template.make(providers.refFor(providers.defaultProviderId)) }, position),
    );
    selected.value = [name];
    return name;
  }

  function updateAgent(name: string, patch: Partial<AgentSpec>): void {
    const fields = Object.keys(patch).join(',');
    edit(
      (fleet) => {
        const agent = fleet.agents.find((candidate) => candidate.name === name);
        if (agent) Object.assign(agent, clone(patch));
        for (const key of Object.keys(patch) as Array<keyof AgentSpec>)
          if (agent && patch[key] === undefined) delete agent[key];
      },
      { coalesce: `${name}:${fields}` },
    );
  }

  function rename(from: string, to: string): void {
    edit((fleet) => renameAgent(fleet, from, to));
    selected.value = selected.value.map((name) => (name === from ? to : name));
  }

  function removeSelected(): void {
    if (selectedEdge.value) {
      const { source, target, data } = selectedEdge.value;
      edit((fleet) => void disconnect(fleet, source, target, data));
      selectedEdge.value = null;
      return;
    }
    const names = selected.value.filter((name) => name !== TASK_NODE_ID);
    if (names.length === 0) return;
    edit((fleet) => removeAgents(fleet, names));
    selected.value = [];
  }

  function copySelected(): number {
    const fleet = current.value;
    if (!fleet) return 0;
    clipboard = clone(fleet.agents.filter((agent) => selected.value.includes(agent.name)));
    return clipboard.length;
  }

  function paste(): void {
    const fleet = current.value;
    if (!fleet || clipboard.length === 0) return;
    const pasted: string[] = [];
    edit((draft) => {
      for (const agent of clipboard) {
        const name = uniqueName(draft, agent.name);
        const at = draft.layout[agent.name] ?? { x: 200, y: 80 };
        addAgent(draft, { ...clone(agent), name }, { x: at.x + 40, y: at.y + 40 });
        pasted.push(name);
      }
    });
    selected.value = pasted;
  }

  /** Lays every agent out along the team's edges (undoable). */
  function arrange(): void {
    const fleet = current.value;
    if (!fleet) return;
    const { edges } = fleetToCanvas({ ...fleet, layout: {} });
    const positions = layeredPositions(
      [TASK_NODE_ID, ...fleet.agents.map((agent) => agent.name)],
      edges.filter((edge) => edge.data.kind !== 'loop'),
    );
    edit((draft) => {
      draft.layout = Object.fromEntries(draft.agents.map((agent) => [agent.name, positions[agent.name]!]));
    });
    frameRequests.value++;
  }

  const move = (name: string, position: Position, record = true) =>
    edit((fleet) => void (fleet.layout[name] = { x: Math.round(position.x), y: Math.round(position.y) }), {
      record,
    });
  const link = (source: string, target: string) => edit((fleet) => connect(fleet, source, target));
  const unlink = (source: string, target: string, data: CanvasEdgeData) =>
    edit((fleet) => void disconnect(fleet, source, target, data));
  const setPattern = (pattern: TeamSpec['pattern']) =>
    edit((fleet) => void (fleet.team = teamForPattern(fleet, pattern)));
  const setTeam = (team: TeamSpec) => edit((fleet) => void (fleet.team = clone(team)));
  const setTermination = (spec: TerminationSpec | undefined) =>
    edit((fleet) => (spec ? (fleet.termination = clone(spec)) : delete fleet.termination));
  const setInfo = (patch: { name?: string; description?: string }) =>
    edit((fleet) => void Object.assign(fleet, patch));

  function enter(teamName: string): void {
    if (!current.value?.agents.find((agent) => agent.name === teamName)?.fleet) return;
    path.value = [...path.value, teamName];
    selected.value = [];
    selectedEdge.value = null;
  }
  function leaveTo(depth: number): void {
    path.value = path.value.slice(0, depth);
    selected.value = [];
    selectedEdge.value = null;
  }

  /** Saves, starts a run of the saved fleet and returns its session id. `folder`: see FolderField. */
  async function run(task: string, folder = ''): Promise<string | null> {
    await saveNow();
    if (!fleetId.value || !canRun.value) return null;
    const result = await bridge.call('runs.start', {
      source: { fleetId: fleetId.value },
      task,
      ...(folder ? { folder } : {}),
    });
    if (!result.ok) return fail(result.error, null);
    return result.value.sessionId;
  }

  return {
    close,
    fleetId,
    root,
    path,
    openCount,
    frameRequests,
    current,
    selected,
    selectedEdge,
    selectedAgent,
    readOnly,
    saveState,
    message,
    issues,
    rootIssues,
    issuesByAgent,
    canRun,
    canUndo,
    canRedo,
    open,
    edit,
    undo,
    redo,
    arrange,
    saveNow,
    addFromTemplate,
    updateAgent,
    rename,
    removeSelected,
    copySelected,
    paste,
    move,
    link,
    unlink,
    setPattern,
    setTeam,
    setTermination,
    setInfo,
    enter,
    leaveTo,
    run,
  };
});
