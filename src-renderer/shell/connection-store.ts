import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AppInfo } from '@shared/contract';
import { useBridge, type ConnectionState } from '../bridge';
import { createFailureReporter } from '../ui/failure';

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
  });
  bridge.onDidRequireResync(() => void loadInfo());

  return { state, info, lastPingAt, error, offlineSince, loadInfo };
});
