import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { computed, effectScope, nextTick, shallowRef } from 'vue';
import type { SessionDisplay } from '../../src-renderer/session/display';
import type { LogEntry } from '../../src-renderer/session/message-log';
import { flatRows } from '../../src-renderer/transcript/thread-index';
import { messageAtPlayhead } from '../../src-renderer/transcript/message-at';
import { useTranscriptSearch } from '../../src-renderer/transcript/useTranscriptSearch';
import { EventLog } from './session-fixture';
import { replayOf } from './replay-display';

/** planner answers, then writer streams a reply in chunks; the session then stops. */
function log(): EventLog {
  const events = new EventLog().start();
  events.say('m1', 'planner', 'writer', ['The Plan ', 'is ready']);
  events.say(
    'm2',
    'writer',
    'planner',
    Array.from({ length: 8 }, (_, i) => `line ${i} `),
    { parentId: 'm1' },
  );
  return events.stop();
}

describe('searching the transcript', () => {
  const { timeline, at } = replayOf(log().events);
  const deltasOf = (id: string) =>
    timeline.events.flatMap((event, index) =>
      event.kind === 'message.delta' && event.payload.messageId === id ? [index + 1] : [],
    );

  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function search(seq: number) {
    const display = shallowRef<SessionDisplay>(at(seq));
    const reveal = vi.fn();
    const scope = effectScope();
    const result = scope.run(() => {
      const logRef = computed(() => timeline.log);
      const rows = computed(() => {
        const count = Math.min(display.value.visibleCount, timeline.log.size);
        return flatRows(
          Int32Array.from({ length: count }, (_, i) => i),
          count,
        );
      });
      return useTranscriptSearch({
        rows,
        log: logRef,
        messageFor: (entry: LogEntry) => messageAtPlayhead(entry, display.value),
        seq: () => display.value.seq,
        reveal,
      });
    })!;
    return { display, reveal, scope, ...result };
  }

  it('finds text case-insensitively after a typing pause and reveals the first match', async () => {
    const { query, matches, reveal, scope } = search(timeline.events.length);
    query.value = 'PLAN';
    await nextTick();
    expect(matches.value).toEqual([]);
    vi.advanceTimersByTime(200);
    await nextTick();
    // "The Plan is ready" (row 0) and writer's reply to planner does not hold it.
    expect(matches.value).toEqual([0]);
    expect(reveal).toHaveBeenCalledWith(0);
    scope.stop();
  });

  it('searches a streaming message again as its text grows, and a completed one as it stays', async () => {
    const deltas = deltasOf('m2');
    const { display, query, matches, scope } = search(deltas[1]!);
    query.value = 'line 5';
    await nextTick();
    vi.advanceTimersByTime(200);
    await nextTick();
    expect(matches.value).toEqual([]);
    display.value = at(deltas[6]!);
    await nextTick();
    expect(matches.value).toEqual([1]);
    // A seek back before the text arrived: no match again.
    display.value = at(deltas[2]!);
    await nextTick();
    expect(matches.value).toEqual([]);
    query.value = 'ready';
    await nextTick();
    vi.advanceTimersByTime(200);
    await nextTick();
    expect(matches.value).toEqual([0]);
    scope.stop();
  });
});
