import { defineStore } from 'pinia';
import { ref } from 'vue';

/** Which view a message was picked in. */
export type SelectionOrigin = 'lanes' | 'transcript';

/**
 * The message picked in the open session, shared by the transcript and the sequence lens: a pick
 * in one brings the other to the same message. `pick` changes on every pick, so picking the same
 * message again scrolls to it again. The session view clears it when it opens another session.
 */
export const useMessageSelection = defineStore('message-selection', () => {
  const messageId = ref<string | null>(null);
  const origin = ref<SelectionOrigin | null>(null);
  const pick = ref(0);

  function select(id: string, from: SelectionOrigin): void {
    messageId.value = id;
    origin.value = from;
    pick.value += 1;
  }

  function clear(): void {
    messageId.value = null;
    origin.value = null;
  }

  return { messageId, origin, pick, select, clear };
});
