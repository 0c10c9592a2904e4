import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope, nextTick, ref, shallowRef, triggerRef } from 'vue';
import type { SessionDisplay } from '../../src-renderer/session/display';
import { useLensDisplay } from '../../src-renderer/lanes/useLensDisplay';
import { EventLog } from './session-fixture';
import { replayOf } from './replay-display';

/** planner streams to writer in many chunks; the session then stops. */
function streamingLog(): EventLog {
  const log = new EventLog().start();
  log.say(
    'm1',
    'planner',
    'writer',
    Array.from({ length: 20 }, (_, i) => `chunk ${i} `),
  );
  return log.stop();
}

describe('what the sequence lens draws while a run streams', () => {
  const { at, seqOf } = replayOf(streamingLog().events);

  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  function lens(following = true) {
    const display = shallowRef<SessionDisplay | null>(at(seqOf('message.started')));
    const model = shallowRef<object>({});
    const follow = ref(following);
    const scope = effectScope();
    const shown = scope.run(() => useLensDisplay({ display, model, following: follow, intervalMs: 100 }))!;
    return { display, model, follow, shown, scope };
  }

  it('takes frames that only stream text at most every interval, and the last one within it', async () => {
    const { display, shown, scope } = lens();
    const first = seqOf('message.delta');
    vi.advanceTimersByTime(150);
    display.value = at(first);
    await nextTick();
    expect(shown.value?.seq).toBe(first);
    // Three more chunks within 30 ms: not drawn yet.
    for (let i = 1; i <= 3; i++) {
      vi.advanceTimersByTime(10);
      display.value = at(first + i);
      await nextTick();
    }
    expect(shown.value?.seq).toBe(first);
    // Within the interval the newest one is drawn, without another event.
    vi.advanceTimersByTime(100);
    expect(shown.value?.seq).toBe(first + 3);
    expect(shown.value).toBe(display.value);
    scope.stop();
  });

  it('takes a completed message, a model that grew or a seek at once', async () => {
    const { display, model, follow, shown, scope } = lens();
    const first = seqOf('message.delta');
    vi.advanceTimersByTime(150);
    display.value = at(first);
    await nextTick();
    vi.advanceTimersByTime(10);
    const completed = seqOf('message.completed');
    display.value = at(completed);
    await nextTick();
    expect(shown.value?.seq).toBe(completed);
    vi.advanceTimersByTime(10);
    display.value = at(completed + 1);
    triggerRef(model); // the lanes model grew in place
    await nextTick();
    expect(shown.value?.seq).toBe(completed + 1);
    // Replaying (not following): every frame is drawn.
    follow.value = false;
    for (const seq of [first + 2, first + 3, first + 4]) {
      vi.advanceTimersByTime(5);
      display.value = at(seq);
      await nextTick();
      expect(shown.value?.seq).toBe(seq);
    }
    scope.stop();
  });

  it('leaves no timer behind when the lens closes', async () => {
    const { display, shown, scope } = lens();
    vi.advanceTimersByTime(150);
    display.value = at(seqOf('message.delta'));
    await nextTick();
    display.value = at(seqOf('message.delta') + 1);
    await nextTick();
    scope.stop();
    const before = shown.value;
    vi.advanceTimersByTime(500);
    expect(shown.value).toBe(before);
  });
});
