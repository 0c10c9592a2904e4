import { describe, expect, it } from 'vitest';
import { IDLE_GAP_LIMIT_MS, Timeline } from '../../src-renderer/session/timeline';
import { formatSkipped } from '../../src-renderer/ui/format';
import { EventLog } from './session-fixture';

describe('idle gaps in the replay timeline', () => {
  it('records every quiet stretch longer than the limit, before the event that ends it', () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['Hello']);
    log.say('m2', 'planner', 'writer', ['Hi']);
    log.stop();
    // A 13-minute pause before m2 starts and one just at the limit (not a gap) before the stop.
    const pauseAt = log.events.findIndex(
      (event) => event.kind === 'message.started' && event.agent === 'planner',
    );
    for (let i = pauseAt; i < log.events.length; i++) log.events[i]!.t += 13 * 60_000;
    log.events[log.events.length - 1]!.t = log.events[log.events.length - 2]!.t + IDLE_GAP_LIMIT_MS;

    const timeline = new Timeline();
    timeline.appendAll(log.events);
    expect(timeline.idleGaps).toEqual([{ seq: log.events[pauseAt]!.seq, ms: 13 * 60_000 + 10 }]);
    // The frames keep the log's own times: the gap is compressed only on the playback clock.
    expect(timeline.timeAt(log.events[pauseAt]!.seq)).toBe(log.events[pauseAt]!.t);
  });

  it('says how much replay skips in minutes or seconds', () => {
    expect(formatSkipped(13 * 60_000 + 12_000)).toBe('13 min skipped');
    expect(formatSkipped(25_000)).toBe('25 s skipped');
    expect(formatSkipped(125 * 60_000)).toBe('2 h 5 min skipped');
  });
});
