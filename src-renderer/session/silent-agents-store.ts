import { defineStore } from 'pinia';
import { computed, ref, watch, type InjectionKey } from 'vue';
import type { AgentStatus, RunEvent } from '@shared/domain';
import { useSessionDisplayStore } from './session-display-store';

/** How long (ms) an agent's open turn may go without a word before it is marked silent. */
export const SILENT_AFTER_MS = 30_000;
/** How often (ms) the silence is looked at again while the session is live. */
const TICK_MS = 1_000;
/** The statuses of an open turn: the agent is working, so its silence says something. */
const OPEN_TURN: ReadonlySet<AgentStatus> = new Set(['thinking', 'streaming']);

/**
 * Which agents of the open, live session have an open turn that has been silent for long: no
 * event from them for `SILENT_AFTER_MS`, measured on this window's clock from when their last
 * event arrived (never from the events' own times, which another process's clock wrote). Before
 * an agent is heard from, its silence counts from when the session was opened.
 */
export const useSilentAgentsStore = defineStore('silent-agents', () => {
  const playback = useSessionDisplayStore();
  const lastHeard = new Map<string, number>();
  let openedAt = Date.now();
  const now = ref(openedAt);
  let timer: ReturnType<typeof setInterval> | null = null;

  const watching = computed(() => playback.isActive && playback.following);
  watch(
    watching,
    (on) => {
      if (timer) clearInterval(timer);
      timer = on ? setInterval(() => (now.value = Date.now()), TICK_MS) : null;
      now.value = Date.now();
    },
    { immediate: true },
  );

  /** A new session is open: nobody has been heard from yet. */
  function reset(): void {
    lastHeard.clear();
    openedAt = Date.now();
    now.value = openedAt;
  }

  /** Live events arrived: their agents were heard from now. */
  function heard(events: readonly RunEvent[]): void {
    const at = Date.now();
    for (const event of events) if (event.agent) lastHeard.set(event.agent, at);
  }

  let last: Readonly<Record<string, number>> = {};
  /** Whole seconds of silence per silent agent (none while the view is not at a live end). */
  const silentSeconds = computed<Readonly<Record<string, number>>>(() => {
    const next: Record<string, number> = {};
    const agents = playback.display?.agents ?? {};
    if (watching.value) {
      for (const [agent, status] of Object.entries(agents)) {
        const quiet = now.value - (lastHeard.get(agent) ?? openedAt);
        if (status && OPEN_TURN.has(status) && quiet >= SILENT_AFTER_MS)
          next[agent] = Math.floor(quiet / 1000);
      }
    }
    // The same content keeps its identity, so nothing redraws on a tick that changes nothing.
    if (JSON.stringify(next) === JSON.stringify(last)) return last;
    last = next;
    return next;
  });

  return { silentSeconds, reset, heard };
});

/** What a graph's agent cards read their silence from (seconds, or undefined when not silent). */
export const GRAPH_SILENCE: InjectionKey<(agent: string) => number | undefined> = Symbol('graph-silence');
