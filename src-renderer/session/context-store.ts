import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { SessionContext } from '@shared/contract';
import { useBridge } from '../bridge';

/**
 * The context inspector's state for the open session: which message's model call it shows (null:
 * closed), whether it is open with nothing picked (`open` with no message), and the answer of
 * `sessions.context`. A later `show` wins over an earlier one still in flight.
 */
export const useContextStore = defineStore('context-inspector', () => {
  const open = ref(false);
  const messageId = ref<string | null>(null);
  const context = shallowRef<SessionContext | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let asked = 0;

  /** Opens the inspector on a message of `sessionId`, or with nothing picked (`messageId` null). */
  async function show(sessionId: string, id: string | null): Promise<void> {
    const ask = ++asked;
    open.value = true;
    messageId.value = id;
    context.value = null;
    error.value = null;
    if (id === null) {
      loading.value = false;
      return;
    }
    loading.value = true;
    const result = await useBridge().call('sessions.context', { id: sessionId, messageId: id });
    if (ask !== asked) return;
    loading.value = false;
    if (result.ok) context.value = result.value;
    else error.value = result.error.message;
  }

  function close(): void {
    asked += 1;
    open.value = false;
    messageId.value = null;
    context.value = null;
    loading.value = false;
    error.value = null;
  }

  return { open, messageId, context, loading, error, show, close };
});
