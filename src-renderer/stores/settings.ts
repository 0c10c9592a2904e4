import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Settings } from '@shared/contract';
import { useBridge } from '../bridge';
import { createFailureReporter } from './failure';

/** The user's settings, mirrored from the store and refreshed when another surface changes them. */
export const useSettingsStore = defineStore('settings', () => {
  const bridge = useBridge();
  const settings = ref<Settings | null>(null);
  const error = ref<string | null>(null);
  const fail = createFailureReporter(error);
  const saving = ref(false);

  async function load(): Promise<void> {
    const result = await bridge.call('settings.get', {});
    if (result.ok) settings.value = result.value;
    else fail(result.error);
  }

  async function update(patch: Partial<Settings>): Promise<boolean> {
    saving.value = true;
    try {
      const result = await bridge.call('settings.set', patch);
      if (!result.ok) return fail(result.error, false);
      settings.value = result.value;
      error.value = null;
      return true;
    } finally {
      saving.value = false;
    }
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'store.changed' && event.payload.topic === 'settings') void load();
  });
  bridge.onDidRequireResync(() => void load());

  const theme = computed(() => settings.value?.theme ?? 'system');
  return { settings, error, saving, theme, load, update };
});
