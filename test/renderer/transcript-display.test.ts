import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope, nextTick, ref, shallowRef } from 'vue';
import type { SessionDisplay } from '../../src-renderer/session/display';
import { onlyTextGrew, useTranscriptDisplay } from '../../src-renderer/transcript/useTranscriptDisplay';
import { EventLog } from './session-fixture';
import { replayOf } from './replay-display';

/** planner streams to writer in many chunks, then writer replies; the session then stops. */
function streamingLog(): EventLog {
  const log = new EventLog().start();
  log.say(
    'm1',
    'planner',
    'writer',
    Array.from({ length: 20 }, (_, i) => `chunk ${i} `),
  );
  log.say('m2', 'writer', 'planner', ['a', 'b', 'c'], { parentId: 'm1' });
  return log.stop();
}

describe('what the transcript draws while a run streams', () => {
  const { timeline, at, seqOf } = replayOf(streamingLog().events);
  const firstDelta = seqOf('message.delta');

  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  function transcript(following = true) {
    const display = shallowRef<SessionDisplay | null>(at(seqOf('message.started')));
    const follow = ref(following);
    const scope = effectScope();
    const shown = scope.run(() => useTranscriptDisplay({ display, following: follow, intervalMs: 100 }))!;
    return { display, follow, shown, scope };
  }

  it('tells frames that only grew streaming text from any other change', () => {
    expect(onlyTextGrew(at(firstDelta + 3), at(firstDelta))).toBe(true);
    // The message started (a new row), completed, or its sender's status changed.
    expect(onlyTextGrew(at(firstDelta), at(seqOf('message.started') - 1))).toBe(false);
    expect(onlyTextGrew(at(seqOf('message.completed')), at(firstDelta))).toBe(false);
    expect(onlyTextGrew(at(seqOf('agent.status', firstDelta)), at(firstDelta))).toBe(false);
    // A step back (a seek) and the session stopping.
    expect(onlyTextGrew(at(firstDelta), at(firstDelta + 3))).toBe(false);
    const last = timeline.events.length;
    expect(onlyTextGrew(at(last), at(last - 1))).toBe(false);
    expect(onlyTextGrew(null, at(firstDelta))).toBe(false);
  });

  it('takes frames that only grow text at most every interval, every row at once, and the last within it', async () => {
    const { display, shown, scope } = transcript();
    vi.advanceTimersByTime(150);
    display.value = at(firstDelta);
    await nextTick();
    expect(shown.value?.seq).toBe(firstDelta);
    for (let i = 1; i <= 3; i++) {
      vi.advanceTimersByTime(10);
      display.value = at(firstDelta + i);
      await nextTick();
    }
    // Three more chunks within 30 ms: not drawn yet.
    expect(shown.value?.seq).toBe(firstDelta);
    expect(shown.value?.inFlight.m1?.content).toBe('chunk 0 ');
    vi.advanceTimersByTime(100);
    expect(shown.value).toBe(display.value);
    expect(shown.value?.inFlight.m1?.content).toBe('chunk 0 chunk 1 chunk 2 chunk 3 ');
    scope.stop();
  });

  it('takes a completed message, a new message or a seek at once', async () => {
    const { display, follow, shown, scope } = transcript();
    vi.advanceTimersByTime(150);
    display.value = at(firstDelta);
    await nextTick();
    vi.advanceTimersByTime(10);
    const completed = seqOf('message.completed');
    display.value = at(completed);
    await nextTick();
    expect(shown.value?.seq).toBe(completed);
    vi.advanceTimersByTime(10);
    const second = seqOf('message.started', completed);
    display.value = at(second);
    await nextTick();
    expect(shown.value?.seq).toBe(second);
    // Replaying (not following): every frame is drawn.
    follow.value = false;
    for (const seq of [firstDelta + 2, firstDelta + 3, firstDelta + 4]) {
      vi.advanceTimersByTime(5);
      display.value = at(seq);
      await nextTick();
      expect(shown.value?.seq).toBe(seq);
    }
    scope.stop();
  });

  it('leaves no timer behind when the transcript closes', async () => {
    const { display, shown, scope } = transcript();
    vi.advanceTimersByTime(150);
    display.value = at(firstDelta);
    await nextTick();
    display.value = at(firstDelta + 1);
    await nextTick();
    scope.stop();
    const before = shown.value;
    vi.advanceTimersByTime(500);
    expect(shown.value).toBe(before);
  });
});
