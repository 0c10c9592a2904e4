import { onScopeDispose, ref } from 'vue';
import { useSessionStore } from '../stores/session';

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16] as const;

/**
 * Replay transport for the open session: plays the event log at its recorded pace (event `t`)
 * times `speed`, steps by event or message, and jumps. Drives the store's playhead once per frame.
 */
export function usePlayer() {
  const store = useSessionStore();
  const playing = ref(false);
  const speed = ref<number>(1);
  let playT = 0;
  let lastFrame = 0;
  let handle: number | null = null;

  function tick(now: number): void {
    handle = null;
    if (!playing.value) return;
    const timeline = store.getTimeline();
    const elapsed = Math.min(250, now - lastFrame);
    lastFrame = now;
    playT += elapsed * speed.value;
    const target = Math.max(
      store.playhead + (timeline.timeAt(store.playhead + 1) <= playT ? 1 : 0),
      timeline.seqAtTime(playT),
    );
    if (target >= timeline.lastSeq) {
      pause();
      if (store.isActive) store.goLive();
      else store.seek(timeline.lastSeq);
      return;
    }
    if (target !== store.playhead) store.seek(target);
    handle = requestAnimationFrame(tick);
  }

  function play(): void {
    const timeline = store.getTimeline();
    if (timeline.lastSeq === 0) return;
    if (store.playhead >= timeline.lastSeq) {
      // At the end of a live run there is nothing to play yet; a finished one starts over.
      if (store.isActive) return;
      store.seek(0);
    }
    playT = timeline.timeAt(store.playhead);
    playing.value = true;
    lastFrame = performance.now();
    if (handle === null) handle = requestAnimationFrame(tick);
  }

  function pause(): void {
    playing.value = false;
    if (handle !== null) cancelAnimationFrame(handle);
    handle = null;
  }

  function toggle(): void {
    if (playing.value) pause();
    else play();
  }

  function seekTo(seq: number): void {
    store.seek(seq);
    playT = store.getTimeline().timeAt(store.playhead);
  }

  function stepEvent(direction: 1 | -1): void {
    pause();
    seekTo(store.playhead + direction);
  }

  function stepMessage(direction: 1 | -1): void {
    pause();
    seekTo(store.getTimeline().messageStep(store.playhead, direction));
  }

  function home(): void {
    seekTo(0);
  }

  /** Jump to the end: live when the run is still going. */
  function end(): void {
    pause();
    if (store.isActive) store.goLive();
    else seekTo(store.getTimeline().lastSeq);
  }

  onScopeDispose(pause);

  return { playing, speed, play, pause, toggle, seekTo, stepEvent, stepMessage, home, end };
}

export type Player = ReturnType<typeof usePlayer>;
