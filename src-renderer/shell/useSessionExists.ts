import { onScopeDispose, ref, watch, type Ref } from 'vue';
import { useBridge } from '../bridge';

/** `missing` only when the backend says the id was never stored (or was deleted). */
export type Existence = 'checking' | 'found' | 'missing';

/**
 * Whether the session a link names is stored, so an unknown id gets a not-found page instead of
 * an empty session view. A check that cannot be answered (offline) counts as found: the session
 * view then shows its own loading and connection states.
 */
export function useSessionExists(sessionId: Ref<string | null>): Ref<Existence> {
  const bridge = useBridge();
  const existence = ref<Existence>('checking');
  let generation = 0;

  async function check(id: string | null): Promise<void> {
    const mine = ++generation;
    if (id === null) {
      existence.value = 'found';
      return;
    }
    existence.value = 'checking';
    const result = await bridge.call('sessions.get', { id });
    if (mine !== generation) return;
    existence.value = !result.ok && result.error.code === 'not-found' ? 'missing' : 'found';
  }

  watch(sessionId, (id) => void check(id), { immediate: true });
  const unsubscribe = bridge.onDidReceiveEvent((event) => {
    // A session created elsewhere after its link was opened turns up.
    if (
      existence.value === 'missing' &&
      event.channel === 'store.changed' &&
      event.payload.topic === 'sessions' &&
      event.payload.id === sessionId.value
    )
      void check(sessionId.value);
  });
  onScopeDispose(unsubscribe);
  return existence;
}
