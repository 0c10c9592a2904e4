import { describe, it } from 'vitest';
import { Timeline } from '../../src-renderer/session/timeline';
import { mapGraph, type AgentInfo } from '../../src-renderer/graph/graph-mapper';
import { threadMessages } from '../../src-renderer/transcript/threading';
import { EventLog } from '../renderer/session-fixture';

/**
 * Renderer-side figures measured in Node on the pure session core (no Chromium yet): opening a
 * 100k-message session from its loaded event log, threading it, and seeking at random playheads.
 * Figures are printed, never asserted.
 */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

describe('session view core (Node)', () => {
  it('opens, threads and seeks a 100k-message session; maps a 50-agent graph', () => {
    const agents: AgentInfo[] = Array.from({ length: 50 }, (_, i) => ({
      name: `agent${i}`,
      role: 'worker',
      model: 'scripted',
      type: 'scripted',
    }));
    const log = new EventLog('bench').start();
    for (let i = 0; i < 100_000; i++) {
      const from = `agent${i % 50}`;
      log.say(`m${i}`, from, `agent${(i + 1) % 50}`, ['Lorem ipsum ', 'dolor sit amet'], {
        parentId: i ? `m${i - 1}` : null,
        tokens: 10,
      });
    }
    const events = log.events;

    let started = performance.now();
    const timeline = new Timeline();
    timeline.appendAll(events);
    const openMs = performance.now() - started;

    started = performance.now();
    const rows = threadMessages(timeline.log.entries);
    const threadMs = performance.now() - started;

    const seeks: number[] = [];
    for (let i = 0; i < 200; i++) {
      const target = Math.floor(Math.random() * timeline.lastSeq);
      const t0 = performance.now();
      const frame = timeline.frameAt(target);
      mapGraph(agents, frame);
      timeline.log.countAt(target);
      seeks.push(performance.now() - t0);
    }

    const graphTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      mapGraph(agents, timeline.frameAt(timeline.lastSeq));
      graphTimes.push(performance.now() - t0);
    }

    console.log(
      [
        `ui core: ${events.length} events, ${timeline.log.size} messages, ${rows.length} rows`,
        `  fold whole log into timeline (open, after load): ${openMs.toFixed(0)} ms`,
        `  thread 100k messages: ${threadMs.toFixed(1)} ms`,
        `  seek + graph map at random playheads: p50 ${percentile(seeks, 50).toFixed(2)} ms, p95 ${percentile(seeks, 95).toFixed(2)} ms`,
        `  map 50-agent graph at head: p50 ${percentile(graphTimes, 50).toFixed(3)} ms`,
      ].join('\n'),
    );
  });
});
