import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { AppInfo } from '@shared/contract';
import { useBridge, type ConnectionState } from '../bridge';
import { createFailureReporter } from '../ui/failure';

/** What a control that would write says in a read-only data folder (AppInfo.readOnly). */
export const READ_ONLY_FOLDER =
  'The data folder is read-only: sessions can be read and exported, not changed.';

/** Backend reachability, the app's identity, and the heartbeat. */
export const useConnectionStore = defineStore('connection', () => {
  const bridge = useBridge();
  const state = ref<ConnectionState>(bridge.connection);
  const info = ref<AppInfo | null>(null);
  const lastPingAt = ref<number | null>(null);
  const error = ref<string | null>(null);
  const fail = createFailureReporter(error);
  /** Epoch ms when the connection was last lost; null while online. */
  const offlineSince = ref<number | null>(null);

  async function loadInfo(): Promise<void> {
    const result = await bridge.call('app.info', {});
    if (result.ok) {
      info.value = result.value;
      error.value = null;
    } else fail(result.error);
  }

  bridge.onDidChangeConnection((next) => {
    if (next === 'online') offlineSince.value = null;
    else if (state.value === 'online') offlineSince.value = Date.now();
    state.value = next;
  });
  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'ping') lastPingAt.value = event.payload.at;
    // The store's state changed (a full disk stopped the runs): its notices are in app.info.
    if (event.channel === 'store.changed' && event.payload.topic === 'app') void loadInfo();
  });
  bridge.onDidRequireResync(() => void loadInfo());

  /** The data folder cannot be written: writing controls are disabled (the host refuses them too). */
  const readOnly = computed(() => info.value?.readOnly === true);

  return { state, info, readOnly, lastPingAt, error, offlineSince, loadInfo };
});
