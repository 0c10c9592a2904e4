import { ref, type Ref } from 'vue';
import type { Fleet } from '@shared/domain';
import type { Bridge } from '../bridge';

const AUTOSAVE_MS = 800;
export type SaveState = 'saved' | 'dirty' | 'saving' | 'invalid' | 'failed' | 'read-only';

/**
 * Debounced `fleets.save` of the fleet being edited: only when it is valid, one save at a time,
 * and the first save of a new fleet gives it its id.
 */
export function useAutosave(options: {
  bridge: Bridge;
  root: Ref<Fleet | null>;
  fleetId: Ref<string | null>;
  readOnly: Ref<boolean>;
  errorCount: () => number;
}) {
  const { bridge, root, fleetId, readOnly } = options;
  const saveState = ref<SaveState>('saved');
  const message = ref<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: Promise<void> | null = null;

  function reset(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    saveState.value = readOnly.value ? 'read-only' : 'saved';
    message.value = null;
  }

  function scheduleSave(): void {
    if (timer) clearTimeout(timer);
    if (options.errorCount() > 0) {
      saveState.value = 'invalid';
      return;
    }
    saveState.value = 'dirty';
    timer = setTimeout(() => void saveNow(), AUTOSAVE_MS);
  }

  /** Saves at once when valid and changed. */
  async function saveNow(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending) await pending;
    if (!root.value || readOnly.value || options.errorCount() > 0) return;
    if (saveState.value === 'saved') return;
    saveState.value = 'saving';
    pending = (async () => {
      const fleet = root.value;
      const result = await bridge.call(
        'fleets.save',
        fleetId.value ? { id: fleetId.value, fleet } : { fleet },
      );
      if (result.ok) {
        fleetId.value = result.value.id;
        saveState.value = 'saved';
        message.value = null;
      } else {
        saveState.value = 'failed';
        message.value = result.error.message;
      }
    })();
    await pending;
    pending = null;
  }

  return { saveState, message, reset, scheduleSave, saveNow };
}
