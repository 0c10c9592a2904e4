import type { SessionLoader } from './session-loading';
import { computeDisplay, type OpenSessionState } from './session-state';

/** Replay: where the playhead is and whether it follows the end of the log. */
export interface Playhead {
  /** Moves the playhead; following stops unless it lands on the end of a live run. */
  seek(seq: number): void;
  /** Follows the end of the log again. */
  goLive(): void;
  /** When the log has loaded: a seek made on the preview stays where it landed. */
  keepPreviewSeek(): void;
}

export function createPlayhead(state: OpenSessionState, loader: SessionLoader): Playhead {
  function seek(seq: number): void {
    const { preview, previewHead, timeline } = state;
    if (preview && previewHead) {
      const target = clamp(seq, previewHead.seq);
      state.following.value = target >= previewHead.seq && state.isActive.value;
      state.playhead.value = target;
      void loader.seekPreview(target);
      return;
    }
    const target = clamp(seq, timeline.lastSeq);
    state.following.value = target >= timeline.lastSeq && state.isActive.value;
    state.playhead.value = target;
    computeDisplay(state);
  }

  function goLive(): void {
    state.following.value = true;
    computeDisplay(state);
  }

  function keepPreviewSeek(): void {
    if (state.preview && !state.following.value) state.playhead.value = state.preview.frame.view.seq;
  }

  return { seek, goLive, keepPreviewSeek };
}

/** `seq` rounded to a whole event and kept within the log, 0 to `lastSeq`. */
function clamp(seq: number, lastSeq: number): number {
  return Math.max(0, Math.min(Math.round(seq), lastSeq));
}
