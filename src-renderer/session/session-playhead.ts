import type { SessionLoader } from './session-loading';
import { computeDisplay, endSeq, type OpenSessionState } from './session-state';

/** Within this many events of a window's end, the events after it are read. */
const READ_AHEAD = 2_000;

/** Replay: where the playhead is and whether it follows the end of the log. */
export interface Playhead {
  /** Moves the playhead; following stops unless it lands on the end of a live run. */
  seek(seq: number): void;
  /** Follows the end of the log again. */
  goLive(): void;
  /**
   * The message boundary after (1) or before (-1) the playhead: from what the view holds, else
   * from the store; the end (or the start) when there is none.
   */
  messageStep(direction: 1 | -1): Promise<number>;
}

export function createPlayhead(state: OpenSessionState, loader: SessionLoader): Playhead {
  function seek(seq: number): void {
    const window = state.window;
    const last = endSeq(state);
    const target = clamp(seq, last);
    state.following.value = target >= last && state.isActive.value;
    state.playhead.value = target;
    if (!window) {
      computeDisplay(state);
      return;
    }
    if (!window.covers(target)) {
      void loader.seekWindow();
      return;
    }
    computeDisplay(state);
    if (window.lastSeq - target < READ_AHEAD) void loader.extendWindow();
  }

  function goLive(): void {
    state.following.value = true;
    const window = state.window;
    if (window && !window.covers(endSeq(state))) {
      // The end is outside the window held: read one there (the display follows it).
      state.playhead.value = endSeq(state);
      void loader.seekWindow();
      return;
    }
    computeDisplay(state);
  }

  async function messageStep(direction: 1 | -1): Promise<number> {
    const from = state.playhead.value;
    const window = state.window;
    const held = (window ?? state.timeline).messageBoundary(from, direction);
    if (held !== null) return held;
    const fallback = direction === 1 ? endSeq(state) : 0;
    if (!window) return fallback;
    return (await loader.messageBoundary(from, direction)) ?? fallback;
  }

  return { seek, goLive, messageStep };
}

/** `seq` rounded to a whole event and kept within the log, 0 to `lastSeq`. */
function clamp(seq: number, lastSeq: number): number {
  return Math.max(0, Math.min(Math.round(seq), lastSeq));
}
