import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Settings } from '@shared/contract';
import { useBridge } from '../bridge';

/** The user's settings, mirrored from the store and refreshed when another surface changes them. */
export const useSettingsStore = defineStore('settings', () => {
  const bridge = useBridge();
  const settings = ref<Settings | null>(null);
  const error = ref<string | null>(null);
  const saving = ref(false);

  async function load(): Promise<void> {
    const result = await bridge.call('settings.get', {});
    if (result.ok) settings.value = result.value;
    else error.value = result.error.message;
  }

  async function update(patch: Partial<Settings>): Promise<boolean> {
    saving.value = true;
    try {
      const result = await bridge.call('settings.set', patch);
      if (!result.ok) {
        error.value = result.error.message;
        return false;
      }
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
