import { describe, expect, it } from 'vitest';
import { effectScope, shallowRef, triggerRef } from 'vue';
import { Timeline } from '../../src-renderer/session/timeline';
import { useTranscriptRows } from '../../src-renderer/transcript/useTranscriptRows';
import type { SessionDisplay } from '../../src-renderer/session/display';
import type { GraphSelection } from '../../src-renderer/session/selection';
import { EventLog } from './session-fixture';

/** `count` messages, each after the first replying to the one before it. */
function chain(count: number): EventLog {
  const log = new EventLog().start();
  for (let i = 0; i < count; i++)
    log.say(`m${i}`, i % 2 ? 'writer' : 'planner', 'critic', [`text ${i}`], {
      parentId: i === 0 ? null : `m${i - 1}`,
    });
  return log;
}

/** A display showing the first `visibleCount` messages (all the rows read). */
function displayAt(seq: number, visibleCount: number): SessionDisplay {
  return { seq, visibleCount, inFlight: {} } as unknown as SessionDisplay;
}

describe('transcript rows', () => {
  it('stay the same rows while the log only grows past the playhead, and are cut again when what is shown changes', () => {
    const log = chain(6);
    const timeline = new Timeline();
    timeline.appendAll(log.events);
    // Held the way the session log store holds it: a shallow ref, triggered when it grows.
    const held = shallowRef(timeline);
    const display = shallowRef<SessionDisplay | null>(displayAt(timeline.lastSeq, 4));
    const selection = shallowRef<GraphSelection>(null);
    const scope = effectScope();
    const rows = scope.run(() =>
      useTranscriptRows({ display, getLog: () => held.value.log, selection: () => selection.value }),
    )!;
    const first = rows.rows.value;
    expect(first.length).toBe(4);

    // More messages arrive after the playhead: same rows object, nothing for the list to redraw.
    const more = chain(9);
    timeline.appendAll(more.events.slice(log.events.length));
    expect(timeline.log.size).toBe(9);
    triggerRef(held);
    expect(rows.rows.value).toBe(first);

    // A new count, a fold and a selection each cut the rows again.
    display.value = displayAt(timeline.lastSeq, 7);
    expect(rows.rows.value).not.toBe(first);
    expect(rows.rows.value.length).toBe(7);
    rows.toggle('m2');
    expect(rows.rows.value.length).toBe(3);
    rows.toggle('m2');
    expect(rows.rows.value.length).toBe(7);
    selection.value = { type: 'agent', id: 'writer' };
    expect(rows.rows.value.length).toBe(3);
    scope.stop();
  });
});
