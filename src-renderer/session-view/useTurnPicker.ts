import { computed, shallowRef, watch, type ComputedRef, type Ref } from 'vue';
import { storeToRefs } from 'pinia';
import type { TurnIndex } from '@shared/contract';
import { useBridge } from '../bridge';
import { useSessionStore } from '../session/session-store';

/** Turns listed for the picked agent in a session read in windows: this many around the playhead. */
const TURNS_LISTED = 200;

export interface TurnChoice {
  seq: number;
  /** The turn's number among the agent's turns, from 1. */
  number: number;
}

export interface TurnPicker {
  /** Agents with more than one turn, and how many they have. */
  agents: ComputedRef<Array<{ name: string; count: number }>>;
  /** The picked agent's turns to offer. */
  turns: ComputedRef<TurnChoice[]>;
}

/**
 * What the turn picker offers. A session held whole lists every turn from its log; a long one
 * (read in windows) asks the store for each agent's count and a page of the picked agent's turns
 * around the playhead, so the picker never waits for the log.
 */
export function useTurnPicker(agent: Ref<string>): TurnPicker {
  const store = useSessionStore();
  const bridge = useBridge();
  const { windowed, sessionId } = storeToRefs(store);
  const stored = shallowRef<TurnIndex | null>(null);
  let asked = 0;

  watch(
    [sessionId, windowed, agent],
    async () => {
      const id = sessionId.value;
      const ask = ++asked;
      if (!windowed.value || !id) {
        stored.value = null;
        return;
      }
      const result = await bridge.call('sessions.turns', {
        id,
        ...(agent.value ? { agent: agent.value } : {}),
        aroundSeq: store.playhead,
        limit: TURNS_LISTED,
      });
      if (ask === asked && result.ok) stored.value = result.value;
    },
    { immediate: true },
  );

  const agents = computed(() => {
    if (windowed.value) return (stored.value?.agents ?? []).filter((entry) => entry.count > 1);
    return [...store.getTimeline().turns.entries()]
      .filter(([, seqs]) => seqs.length > 1)
      .map(([name, seqs]) => ({ name, count: seqs.length }));
  });

  const turns = computed((): TurnChoice[] => {
    if (!agent.value) return [];
    if (windowed.value) {
      const index = stored.value;
      if (!index || index.agent !== agent.value) return [];
      return index.seqs.map((seq, i) => ({ seq, number: index.firstIndex + i + 1 }));
    }
    return (store.getTimeline().turns.get(agent.value) ?? []).map((seq, i) => ({ seq, number: i + 1 }));
  });

  return { agents, turns };
}
