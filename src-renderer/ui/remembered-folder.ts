import { ref, watch, type Ref } from 'vue';

const KEY = 'fleetscope.runFolder.';

/**
 * The folder a run may read files from, remembered per fleet (in this browser's storage): choosing
 * a fleet brings back the folder last used with it; changing the folder remembers it for that fleet.
 */
export function useRememberedFolder(fleetKey: Ref<string>): Ref<string> {
  const read = (key: string) => {
    try {
      return key ? (localStorage.getItem(KEY + key) ?? '') : '';
    } catch {
      return '';
    }
  };
  const folder = ref(read(fleetKey.value));
  watch(fleetKey, (key) => (folder.value = read(key)));
  watch(folder, (value) => {
    if (!fleetKey.value) return;
    try {
      if (value.trim()) localStorage.setItem(KEY + fleetKey.value, value.trim());
      else localStorage.removeItem(KEY + fleetKey.value);
    } catch {
      // Storage full or blocked: the folder is still used for this run.
    }
  });
  return folder;
}
