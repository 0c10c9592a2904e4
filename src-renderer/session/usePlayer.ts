import { onScopeDispose, ref } from 'vue';
import { useSessionStore } from './session-store';
import { IDLE_GAP_LIMIT_MS } from './timeline';

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16] as const;

/**
 * Replay transport for the open session: plays the event log at its recorded pace (event `t`)
 * times `speed`, steps by event or message, and jumps. An idle gap (a quiet stretch longer than
 * IDLE_GAP_LIMIT_MS) plays as IDLE_GAP_LIMIT_MS: only this playback clock is compressed, the
 * frames and their times stay those of the log. Drives the store's playhead once per frame.
 * It reads only what the store holds around the playhead (`getReplay`): while the playhead is
 * outside it (a window on its way) the clock waits, and at the end of what is held it waits for
 * the next events rather than stopping.
 */
export function usePlayer() {
  const store = useSessionStore();
  const playing = ref(false);
  const speed = ref<number>(1);
  /** Seq of the event after the idle gap being played through, else null. */
  const skipping = ref<number | null>(null);
  let playT = 0;
  /** Set when the playhead moved somewhere the clock has not been read from yet. */
  let clockStale = true;
  let lastFrame = 0;
  let handle: number | null = null;

  function tick(now: number): void {
    handle = null;
    if (!playing.value) return;
    const replay = store.getReplay();
    const end = store.endSeq();
    const elapsed = Math.min(250, now - lastFrame);
    lastFrame = now;
    if (!replay.covers(store.playhead)) {
      handle = requestAnimationFrame(tick);
      return;
    }
    if (clockStale) {
      playT = replay.timeAt(store.playhead);
      clockStale = false;
    }
    playT += elapsed * speed.value;
    skipping.value = null;
    if (store.playhead < replay.lastSeq) {
      const from = replay.timeAt(store.playhead);
      const next = replay.timeAt(store.playhead + 1);
      if (next - from > IDLE_GAP_LIMIT_MS) {
        if (playT - from >= IDLE_GAP_LIMIT_MS) playT = Math.max(playT, next);
        else skipping.value = store.playhead + 1;
      }
    }
    let target = Math.max(
      store.playhead +
        (store.playhead < replay.lastSeq && replay.timeAt(store.playhead + 1) <= playT ? 1 : 0),
      replay.seqAtTime(playT),
    );
    if (target >= end) {
      pause();
      if (store.isActive) store.goLive();
      else store.seek(end);
      return;
    }
    if (target >= replay.lastSeq) {
      // The end of what is held: wait there for the next events.
      target = replay.lastSeq;
      playT = Math.min(playT, replay.lastT);
    }
    if (target !== store.playhead) store.seek(target);
    handle = requestAnimationFrame(tick);
  }

  function play(): void {
    if (store.endSeq() === 0) return;
    if (store.playhead >= store.endSeq()) {
      // At the end of a live run there is nothing to play yet; a finished one starts over.
      if (store.isActive) return;
      seekTo(0);
    }
    clockStale = true;
    playing.value = true;
    lastFrame = performance.now();
    if (handle === null) handle = requestAnimationFrame(tick);
  }

  function pause(): void {
    playing.value = false;
    skipping.value = null;
    if (handle !== null) cancelAnimationFrame(handle);
    handle = null;
  }

  function toggle(): void {
    if (playing.value) pause();
    else play();
  }

  function seekTo(seq: number): void {
    store.seek(seq);
    clockStale = true;
  }

  function stepEvent(direction: 1 | -1): void {
    pause();
    seekTo(store.playhead + direction);
  }

  /** Steps at once when the boundary is held, else as soon as the store has answered. */
  function stepMessage(direction: 1 | -1): void {
    pause();
    const from = store.playhead;
    const held = store.getReplay().messageBoundary(from, direction);
    if (held !== null) return seekTo(held);
    void store.messageStep(direction).then((seq) => {
      if (store.playhead === from) seekTo(seq);
    });
  }

  function home(): void {
    seekTo(0);
  }

  /** Jump to the end: live when the run is still going. */
  function end(): void {
    pause();
    if (store.isActive) store.goLive();
    else seekTo(store.endSeq());
  }

  onScopeDispose(pause);

  return { playing, speed, skipping, play, pause, toggle, seekTo, stepEvent, stepMessage, home, end };
}

export type Player = ReturnType<typeof usePlayer>;
