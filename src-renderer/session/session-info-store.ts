import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import type { AgentInfo } from './team-shape';

/**
 * Which session is open and what is known of it besides its log: the stored summary, the agents
 * of its fleet, whether it is still loading and what went wrong. Each open or close starts a new
 * generation; work started for an older one is dropped when it comes back.
 */
export const useSessionInfoStore = defineStore('session-info', () => {
  const sessionId = ref<string | null>(null);
  const summary = ref<SessionListItem | null>(null);
  const agents = shallowRef<AgentInfo[]>([]);
  const fleetName = ref('');
  const loading = ref(false);
  const error = ref<string | null>(null);
  /** Not reactive: views never draw it, and effects must not re-run when it moves on. */
  let generation = 0;

  /** The generation now; a result for another one is stale. */
  function currentGeneration(): number {
    return generation;
  }

  /** Starts a new generation (an open or a close) and returns it. */
  function nextGeneration(): number {
    generation += 1;
    return generation;
  }

  return {
    sessionId,
    summary,
    agents,
    fleetName,
    loading,
    error,
    currentGeneration,
    nextGeneration,
  };
});
