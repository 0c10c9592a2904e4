import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Settings } from '@shared/contract';
import { useBridge } from '../bridge';
import { createFailureReporter } from '../ui/failure';

/** The user's settings, mirrored from the store and refreshed when another surface changes them. */
export const useSettingsStore = defineStore('settings', () => {
  const bridge = useBridge();
  const settings = ref<Settings | null>(null);
  const error = ref<string | null>(null);
  const fail = createFailureReporter(error);
  const saving = ref(false);
  /** A theme picked and not yet saved: shown at once, whatever the host's round trip costs. */
  const pickedTheme = ref<Settings['theme'] | null>(null);
  /** Updates started, and those still waiting for the host. */
  let updatesStarted = 0;
  let updatesPending = 0;

  async function load(): Promise<void> {
    const startedAt = updatesStarted;
    const result = await bridge.call('settings.get', {});
    if (!result.ok) return void fail(result.error);
    // Read before an update that is still under way or answered since: that update's answer (and
    // the change event that follows it) is newer than this read, which would undo it on screen.
    if (updatesPending > 0 || updatesStarted !== startedAt) return;
    settings.value = result.value;
  }

  async function update(patch: Partial<Settings>): Promise<boolean> {
    updatesStarted++;
    updatesPending++;
    saving.value = true;
    if (patch.theme !== undefined) pickedTheme.value = patch.theme;
    try {
      const result = await bridge.call('settings.set', patch);
      if (!result.ok) return fail(result.error, false);
      settings.value = result.value;
      error.value = null;
      return true;
    } finally {
      updatesPending--;
      saving.value = updatesPending > 0;
      if (updatesPending === 0) pickedTheme.value = null;
    }
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'store.changed' && event.payload.topic === 'settings') void load();
  });
  bridge.onDidRequireResync(() => void load());

  const theme = computed(() => pickedTheme.value ?? settings.value?.theme ?? 'system');
  return { settings, error, saving, theme, load, update };
});
