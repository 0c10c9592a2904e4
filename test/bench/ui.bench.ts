import { describe, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { Timeline } from '../../src-renderer/session/timeline';
import { mapGraph, type AgentInfo } from '../../src-renderer/session/graph-mapper';
import { threadMessages } from '../../src-renderer/transcript/threading';
import { EventLog } from '../renderer/session-fixture';
import { BenchReport, benchReps, benchSize, interleave, percentile } from './harness';

/**
 * The renderer's session core in Node (no DOM): folding a loaded event log into the timeline,
 * threading its messages, and seeking with the 50-agent graph mapped, for a MESSAGES-message
 * session beside the same work on a SMALL-message one (per message for the linear work, per seek
 * for the seek), interleaved. Printed and written as JSON, never asserted on time.
 * FLEETSCOPE_BENCH_UI_MESSAGES sets the size (default 100,000).
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_UI_MESSAGES', 100_000);
const SMALL = 1_000;
const SEEKS = 200;
const REPS = benchReps();

const agents: AgentInfo[] = Array.from({ length: 50 }, (_, i) => ({
  name: `agent${i}`,
  role: 'worker',
  model: 'scripted',
  type: 'scripted',
}));

function eventLog(messages: number): RunEvent[] {
  const log = new EventLog('bench').start();
  for (let i = 0; i < messages; i++) {
    log.say(`m${i}`, `agent${i % 50}`, `agent${(i + 1) % 50}`, ['Lorem ipsum ', 'dolor sit amet'], {
      parentId: i ? `m${i - 1}` : null,
      tokens: 10,
    });
  }
  return log.events;
}

function fold(events: RunEvent[]): Timeline {
  const timeline = new Timeline();
  timeline.appendAll(events);
  return timeline;
}

/** Microseconds per message to fold `events` into a new timeline. */
function foldPerMessage(events: RunEvent[], messages: number): number {
  const started = performance.now();
  fold(events);
  return ((performance.now() - started) * 1000) / messages;
}

/** Microseconds per message to thread the timeline's messages. */
function threadPerMessage(timeline: Timeline, messages: number): number {
  const started = performance.now();
  threadMessages(timeline.log.entries);
  return ((performance.now() - started) * 1000) / messages;
}

/** p95 milliseconds of a seek (frame at a random seq, graph mapped, messages counted). */
function seekP95(timeline: Timeline): number {
  const seeks: number[] = [];
  for (let i = 0; i < SEEKS; i++) {
    const target = Math.floor(Math.random() * timeline.lastSeq);
    const started = performance.now();
    mapGraph(agents, timeline.frameAt(target));
    timeline.log.countAt(target);
    seeks.push(performance.now() - started);
  }
  return percentile(seeks, 0.95);
}

describe('session view core (Node)', () => {
  it(`folds, threads and seeks a ${MESSAGES}-message session beside a ${SMALL}-message one`, async () => {
    const big = eventLog(MESSAGES);
    const small = eventLog(SMALL);
    const bigTimeline = fold(big);
    const smallTimeline = fold(small);
    const figures = await interleave(REPS, {
      foldBig: () => foldPerMessage(big, MESSAGES),
      foldSmall: () => foldPerMessage(small, SMALL),
      threadBig: () => threadPerMessage(bigTimeline, MESSAGES),
      threadSmall: () => threadPerMessage(smallTimeline, SMALL),
      seekBig: () => seekP95(bigTimeline),
      seekSmall: () => seekP95(smallTimeline),
    });
    const report = new BenchReport('ui-core', `Session view core in Node, ${MESSAGES} messages, 50 agents`, {
      messages: MESSAGES,
      events: big.length,
      reps: REPS,
    });
    report.add({
      id: 'fold',
      label: `fold the loaded log into the timeline, per message (${MESSAGES})`,
      unit: 'µs',
      values: figures.foldBig,
      baseline: { label: `same, ${SMALL} messages`, values: figures.foldSmall },
      goal: { kind: 'info', text: 'linear: ~1x' },
    });
    report.add({
      id: 'thread',
      label: `thread the messages, per message (${MESSAGES})`,
      unit: 'µs',
      values: figures.threadBig,
      baseline: { label: `same, ${SMALL} messages`, values: figures.threadSmall },
      goal: { kind: 'info', text: 'linear: ~1x' },
    });
    report.add({
      id: 'seek',
      label: `seek + 50-agent graph map, p95 of ${SEEKS} (${MESSAGES})`,
      unit: 'ms',
      values: figures.seekBig,
      baseline: { label: `same, ${SMALL} messages`, values: figures.seekSmall },
      goal: { kind: 'value', max: 50, text: 'part of p95 < 50 ms to painted frame' },
    });
    report.finish();
  });
});
