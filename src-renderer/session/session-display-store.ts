import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { SessionListItem } from '@shared/contract';
import { isLiveStatus, type ViewState } from '@shared/domain';
import { displayOf, type SessionDisplay } from './display';
import type { AgentInfo } from './team-shape';
import type { Timeline } from './timeline';
import { useSessionInfoStore } from './session-info-store';
import { useSessionLogStore } from './session-log-store';

/**
 * Everything a display is made from. The frame at a seq of one timeline never changes (events
 * are only appended after it; a replaced window is another timeline), and the end of the log is
 * told by its seq, so a display with the same key would be the same: it is not published again
 * (reading more events after the playhead redraws nothing).
 */
interface DisplayKey {
  replay: Timeline;
  seq: number;
  head: ViewState;
  headSeq: number;
  lastT: number;
  agents: readonly AgentInfo[];
  summary: SessionListItem | null;
}

/**
 * The playhead and what the session view shows there. `display` is published by `computeDisplay`
 * (once per animation frame at most while events arrive), never recomputed reactively: it is made
 * of fresh objects read from timelines that keep changing in place.
 */
export const useSessionDisplayStore = defineStore('session-display', () => {
  const info = useSessionInfoStore();
  const log = useSessionLogStore();
  const display = shallowRef<SessionDisplay | null>(null);
  /** True while the playhead follows the end of the log (live). */
  const following = ref(true);
  const playhead = ref(0);
  /** True while a process drives the session (judged at the end of the log). */
  const isActive = computed(() => isLiveStatus(display.value?.headStatus));
  /** The key of the display last published, and that display. */
  let published: { key: DisplayKey; display: SessionDisplay } | null = null;

  /**
   * Publishes what the view shows at the playhead: the end of the log while following, else the
   * playhead; from the window while there is one (a playhead outside it, while its window is on
   * the way, shows the window's nearest frame), else from the whole log.
   */
  function computeDisplay(): void {
    const { window, head, timeline } = log;
    if (window && head) {
      const last = head.seq;
      const wanted = following.value ? last : Math.min(playhead.value, last);
      playhead.value = wanted;
      const seq = Math.max(window.baseSeq, Math.min(wanted, window.lastSeq));
      const lastT = Math.max(head.t, window.lastT);
      const key = displayKey(window, seq, head, head.seq, lastT);
      if (unchanged(key)) return;
      publish(
        key,
        displayOf(
          { frame: window.frameAt(seq), head, lastT, visibleCount: window.log.countAt(seq) },
          info.agents,
          info.summary,
        ),
      );
      return;
    }
    const seq = following.value ? timeline.lastSeq : Math.min(playhead.value, timeline.lastSeq);
    playhead.value = seq;
    const headView = timeline.frameAt(timeline.lastSeq).view;
    const key = displayKey(timeline, seq, headView, timeline.lastSeq, timeline.lastT);
    if (unchanged(key)) return;
    publish(
      key,
      displayOf(
        {
          frame: timeline.frameAt(seq),
          head: headView,
          lastT: timeline.lastT,
          visibleCount: timeline.log.countAt(seq),
        },
        info.agents,
        info.summary,
      ),
    );
  }

  function displayKey(
    replay: Timeline,
    seq: number,
    head: ViewState,
    headSeq: number,
    lastT: number,
  ): DisplayKey {
    return { replay, seq, head, headSeq, lastT, agents: info.agents, summary: info.summary };
  }

  function unchanged(key: DisplayKey): boolean {
    if (!published || display.value !== published.display) return false;
    const before = published.key;
    return (
      before.replay === key.replay &&
      before.seq === key.seq &&
      before.head === key.head &&
      before.headSeq === key.headSeq &&
      before.lastT === key.lastT &&
      before.agents === key.agents &&
      before.summary === key.summary
    );
  }

  function publish(key: DisplayKey, next: SessionDisplay): void {
    published = { key, display: next };
    display.value = next;
  }

  /** Shows nothing and lets go of what the last display was made from (the view closed). */
  function clearDisplay(): void {
    published = null;
    display.value = null;
  }

  /** Back to the start for a newly opened session: nothing shown, following the end. */
  function reset(): void {
    display.value = null;
    following.value = true;
    playhead.value = 0;
  }

  return { display, following, playhead, isActive, computeDisplay, clearDisplay, reset };
});
