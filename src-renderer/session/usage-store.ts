import { defineStore } from 'pinia';
import { computed, shallowRef, watch } from 'vue';
import type { SessionUsage } from '@shared/contract';
import type { UsageFigures } from '@shared/domain';
import { useBridge } from '../bridge';
import { useSessionStore } from './session-store';

/** While the playhead moves (play, a live run), usage is asked again at most this often. */
const REFRESH_MS = 400;

/**
 * Tokens, cost and busy time of the open session's model calls up to the playhead
 * (`sessions.usage`), in total, per agent and per edge, for the header, the graph and the lanes.
 * Asked again as the playhead moves, at most every REFRESH_MS; a later answer replaces an earlier.
 */
export const useSessionUsageStore = defineStore('session-usage', () => {
  const session = useSessionStore();
  const usage = shallowRef<SessionUsage | null>(null);
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastAsk = 0;

  async function ask(): Promise<void> {
    timer = null;
    lastAsk = Date.now();
    const id = session.sessionId;
    const seq = session.display?.seq;
    const mine = ++asked;
    if (!id || seq === undefined) return;
    const result = await useBridge().call('sessions.usage', { id, seq });
    if (mine === asked && result.ok) usage.value = result.value;
  }

  watch(
    () => [session.sessionId, session.display?.seq] as const,
    ([id], [before]) => {
      if (id !== before) {
        usage.value = null;
        asked += 1;
      }
      if (timer !== null) return;
      timer = setTimeout(() => void ask(), Math.max(0, lastAsk + REFRESH_MS - Date.now()));
    },
  );

  const byAgent = computed(() => new Map((usage.value?.agents ?? []).map((a) => [a.name, a.figures])));
  const byEdge = computed(
    () => new Map((usage.value?.edges ?? []).map((e) => [`${e.from}\u0000${e.to}`, e.figures])),
  );

  return {
    usage,
    total: computed<UsageFigures | null>(() => usage.value?.total ?? null),
    byAgent,
    /** An edge's figures: the turns of `to` that answered `from`. */
    edge: (from: string, to: string) => byEdge.value.get(`${from}\u0000${to}`) ?? null,
  };
});
