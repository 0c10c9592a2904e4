import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { FleetSummary } from '@shared/contract';
import { forkableFleet, parseFleet } from '@shared/domain';
import { useBridge } from '../bridge';
import { createFailureReporter } from '../ui/failure';

/** Saved fleets and the shipped examples, refreshed when the store announces a change. */
export const useFleetsStore = defineStore('fleets', () => {
  const bridge = useBridge();
  const fleets = ref<FleetSummary[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const fail = createFailureReporter(error);

  async function load(): Promise<void> {
    const result = await bridge.call('fleets.list', {});
    loaded.value = true;
    if (result.ok) {
      fleets.value = result.value;
      error.value = null;
    } else fail(result.error);
  }

  /** The fleet file as written, or null (with `error` set). */
  async function fetchFleet(id: string): Promise<unknown> {
    const result = await bridge.call('fleets.get', { id });
    if (!result.ok) return fail(result.error, null);
    return result.value.fleet;
  }

  /** Saves `fleet` as `id`, or as a new fleet (a copy of `copyOf` keeps that fleet's MCP secrets). */
  async function save(fleet: unknown, id?: string, copyOf?: string): Promise<FleetSummary | null> {
    const result = await bridge.call(
      'fleets.save',
      id ? { id, fleet } : copyOf ? { copyOf, fleet } : { fleet },
    );
    if (!result.ok) return fail(result.error, null);
    await load();
    return result.value;
  }

  async function remove(id: string): Promise<boolean> {
    const result = await bridge.call('fleets.delete', { id });
    if (!result.ok) fail(result.error);
    await load();
    return result.ok;
  }

  async function duplicate(id: string): Promise<FleetSummary | null> {
    const fleet = (await fetchFleet(id)) as { name?: string } | null;
    if (!fleet) return null;
    return save({ ...fleet, name: `${fleet.name ?? 'Fleet'} (copy)` }, undefined, id);
  }

  /** Imports a fleet file's text: JSON, validated like the CLI does, then saved as a new fleet. */
  async function importText(text: string, fileName = 'the file'): Promise<FleetSummary | null> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      return fail(cause instanceof Error ? cause.message : String(cause), null, `${fileName} is not JSON`);
    }
    const parsed = parseFleet(value);
    if (!parsed.ok) {
      const issues = parsed.issues
        .slice(0, 5)
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join('; ');
      return fail(issues, null, `${fileName} is not a valid fleet`);
    }
    return save(value);
  }

  /** The exact JSON the CLI runs (`fleetscope run FILE`). */
  async function exportText(id: string): Promise<{ text: string; fileName: string } | null> {
    const fleet = (await fetchFleet(id)) as { name?: string } | null;
    if (!fleet) return null;
    const slug =
      (fleet.name ?? 'fleet')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'fleet';
    return { text: `${JSON.stringify(fleet, null, 2)}\n`, fileName: `${slug}.fleet.json` };
  }

  /**
   * "Fork as new fleet": saves the fleet snapshot a session ran with as a new fleet and returns
   * it; open it with `#/fleets/<id>`. A traced parent agent's team gets a lead that runs the
   * parent's own prompt and model (`forkableFleet`).
   */
  async function forkFromSession(sessionId: string): Promise<FleetSummary | null> {
    const result = await bridge.call('sessions.get', { id: sessionId });
    if (!result.ok) return fail(result.error, null);
    const snapshot = result.value.fleet;
    if (!snapshot)
      return fail('This session has no fleet to fork (it was imported from another tool).', null);
    // A copy of the fleet it ran keeps that fleet's MCP secrets (the snapshot holds them masked).
    if (!loaded.value) await load();
    const source = fleets.value.find((fleet) => fleet.name === snapshot.name);
    const fork = forkableFleet({ ...snapshot, name: `${snapshot.name} (fork)` });
    return save(fork, undefined, source?.id);
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'store.changed' && event.payload.topic === 'fleets') void load();
  });
  bridge.onDidRequireResync(() => void load());

  return {
    fleets,
    loaded,
    error,
    load,
    fetchFleet,
    save,
    remove,
    duplicate,
    importText,
    exportText,
    forkFromSession,
  };
});
