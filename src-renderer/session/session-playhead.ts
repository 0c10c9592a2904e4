import type { SessionLoader } from './session-loading';
import { useSessionDisplayStore } from './session-display-store';
import { useSessionLogStore } from './session-log-store';

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

/** Moves the playhead of the session stores (log, display), which must be active. */
export function createPlayhead(loader: SessionLoader): Playhead {
  const log = useSessionLogStore();
  const playback = useSessionDisplayStore();
  function seek(seq: number): void {
    const window = log.window;
    const last = log.endSeq();
    const target = clamp(seq, last);
    playback.following = target >= last && playback.isActive;
    playback.playhead = target;
    if (!window) {
      playback.computeDisplay();
      return;
    }
    if (!window.covers(target)) {
      void loader.seekWindow();
      return;
    }
    playback.computeDisplay();
    if (window.lastSeq - target < READ_AHEAD) void loader.extendWindow();
  }

  function goLive(): void {
    playback.following = true;
    const window = log.window;
    if (window && !window.covers(log.endSeq())) {
      // The end is outside the window held: read one there (the display follows it).
      playback.playhead = log.endSeq();
      void loader.seekWindow();
      return;
    }
    playback.computeDisplay();
  }

  async function messageStep(direction: 1 | -1): Promise<number> {
    const from = playback.playhead;
    const window = log.window;
    const held = (window ?? log.timeline).messageBoundary(from, direction);
    if (held !== null) return held;
    const fallback = direction === 1 ? log.endSeq() : 0;
    if (!window) return fallback;
    return (await loader.messageBoundary(from, direction)) ?? fallback;
  }

  return { seek, goLive, messageStep };
}

/** `seq` rounded to a whole event and kept within the log, 0 to `lastSeq`. */
function clamp(seq: number, lastSeq: number): number {
  return Math.max(0, Math.min(Math.round(seq), lastSeq));
}
