import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { FleetSummary } from '@shared/contract';
import { useBridge } from '../bridge';

/** The fleets a run can start from (saved ones and the shipped examples), for the New run panel. */
export const useFleetListStore = defineStore('fleetList', () => {
  const bridge = useBridge();
  const fleets = ref<FleetSummary[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);

  async function load(): Promise<void> {
    const result = await bridge.call('fleets.list', {});
    loaded.value = true;
    if (result.ok) {
      fleets.value = result.value;
      error.value = null;
    } else error.value = result.error.message;
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'store.changed' && event.payload.topic === 'fleets' && loaded.value) void load();
  });
  bridge.onDidRequireResync(() => {
    if (loaded.value) void load();
  });

  return { fleets, loaded, error, load };
});
