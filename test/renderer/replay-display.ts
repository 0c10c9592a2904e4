import type { RunEvent } from '@shared/domain';
import { displayOf, type SessionDisplay } from '../../src-renderer/session/display';
import { Timeline } from '../../src-renderer/session/timeline';

/**
 * A stored log replayed as the session view replays it: the timeline, what the view displays at a
 * seq (no selection, no agents besides the log's), and the seq of the first event of a kind at or
 * after `from`.
 */
export function replayOf(events: readonly RunEvent[]): {
  timeline: Timeline;
  at: (seq: number) => SessionDisplay;
  seqOf: (kind: RunEvent['kind'], from?: number) => number;
} {
  const timeline = new Timeline();
  timeline.appendAll(events);
  const at = (seq: number): SessionDisplay =>
    displayOf(
      {
        frame: timeline.frameAt(seq),
        head: timeline.frameAt(seq).view,
        lastT: timeline.timeAt(seq),
        visibleCount: timeline.log.countAt(seq),
      },
      [],
      null,
    );
  const seqOf = (kind: RunEvent['kind'], from = 1): number =>
    timeline.events.findIndex((event, index) => index >= from - 1 && event.kind === kind) + 1;
  return { timeline, at, seqOf };
}
