import { describe, expect, it } from 'vitest';
import { applyEvent, emptyView, type Message, type RunEvent, type ViewState } from '@shared/domain';
import { Timeline, SNAPSHOT_EVERY } from '../../src-renderer/session/timeline';
import { displayOf } from '../../src-renderer/session/display';
import { agentsOfFleet } from '../../src-renderer/session/graph-mapper';
import { messageAtPlayhead } from '../../src-renderer/transcript/message-at';
import { LanesModel } from '../../src-renderer/lanes/lanes-model';
import { EventLog, threeAgents } from './session-fixture';

/**
 * A session as the runtime records it: each turn reports thinking, then streaming, the message
 * streams and completes, and the turn ends (idle) a few events later. Tool calls, a dropped
 * message, a person's answer and, at the end, a reply cut off by a stop.
 */
function recordedSession(turns: number): EventLog {
  const log = new EventLog().start();
  log.say('task', 'user', 'planner', ['Plan a poem']);
  const agents = ['planner', 'writer', 'critic'];
  for (let turn = 0; turn < turns; turn++) {
    const agent = agents[turn % agents.length] as string;
    const next = agents[(turn + 1) % agents.length] as string;
    const id = `m${turn}`;
    log.add(agent, { kind: 'agent.status', payload: { status: 'thinking' } });
    if (turn % 7 === 3) {
      const call: Message = {
        id: `${id}-call`,
        threadId: 'th1',
        parentId: null,
        from: agent,
        to: agent,
        kind: 'function',
        content: '',
        meta: {},
        toolCalls: [{ id: `c${turn}`, name: 'calculator', arguments: '{"a":1}' }],
        state: 'complete',
        t: 0,
      };
      log.add(agent, { kind: 'message.completed', payload: { message: call } });
      log.add(agent, {
        kind: 'tool.requested',
        payload: { messageId: call.id, callId: `c${turn}`, name: 'calculator', arguments: '{"a":1}' },
      });
      log.add(agent, {
        kind: 'tool.executed',
        payload: { callId: `c${turn}`, name: 'calculator', result: '2', isError: false },
      });
    }
    log.say(id, agent, turn % 11 === 5 ? 'nobody' : turn % 5 === 0 ? '*' : next, [
      `Turn ${turn}, `,
      'line two,',
      ' done',
    ]);
    if (turn % 11 === 5) {
      const completed = log.events.findLast((event) => event.kind === 'message.completed');
      if (completed?.kind === 'message.completed')
        log.add(agent, {
          kind: 'message.dropped',
          payload: { message: completed.payload.message, reason: 'There is no agent named "nobody".' },
        });
    }
    log.add(null, { kind: 'termination.check', payload: { condition: 'max', fired: false, reason: null } });
    if (turn % 13 === 8) {
      log.add('writer', { kind: 'human.requested', payload: { requestId: `r${turn}`, prompt: 'Go on?' } });
      log.add('writer', { kind: 'agent.status', payload: { status: 'waiting-for-human' } });
      log.add('writer', { kind: 'human.given', payload: { requestId: `r${turn}`, text: 'Yes' } });
    }
    // `say` ended the turn with idle; the runtime reports it after the checks, as here.
  }
  // A reply cut off by a stop stays partial.
  log.add('critic', { kind: 'agent.status', payload: { status: 'streaming' } });
  log.add('critic', {
    kind: 'message.started',
    payload: {
      messageId: 'cut',
      threadId: 'th1',
      parentId: null,
      from: 'critic',
      to: 'planner',
      kind: 'text',
    },
  });
  log.add('critic', { kind: 'message.delta', payload: { messageId: 'cut', text: 'Half a' } });
  log.stop('stopped', 'stopped by the user');
  return log;
}

/** Seqs in the order a person might visit them: random jumps, then stepping backwards. */
function visits(lastSeq: number, timeline: Timeline): number[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  const jumps = Array.from({ length: 120 }, () => Math.floor(random() * (lastSeq + 1)));
  const backwards: number[] = [];
  for (let seq = lastSeq; seq > 0; seq = timeline.messageStep(seq, -1)) backwards.push(seq);
  return [
    ...jumps,
    ...backwards,
    0,
    ...Array.from({ length: Math.ceil((lastSeq + 1) / 3) }, (_, step) => step * 3),
  ];
}

describe('graph, lanes and transcript at any playhead, reached forwards or backwards', () => {
  const log = recordedSession(240);
  const events: RunEvent[] = log.events;
  const timeline = new Timeline();
  timeline.appendAll(events);
  const lanes = LanesModel.forTimeline(timeline);
  lanes.ingest();
  const agents = agentsOfFleet(threeAgents);

  it('spans several snapshots', () => {
    expect(timeline.lastSeq).toBeGreaterThan(SNAPSHOT_EVERY * 3);
  });

  /**
   * The truth at every seq, from one plain fold of the whole log from the start (never compacted,
   * never seeked): agent statuses, counts, and the messages not finished yet with their text.
   */
  interface Truth {
    agents: ViewState['agents'];
    messages: number;
    shown: number;
    open: Map<string, { state: string; content: string }>;
  }
  const truths: Truth[] = [];
  const finals = new Map<string, Message>();
  const state = emptyView();
  const record = () =>
    truths.push({
      agents: { ...state.agents },
      messages: state.counters.messages,
      shown: state.order.length,
      open: new Map(
        state.order
          .map((id) => state.messages[id]!)
          .filter((message) => message.state === 'streaming' || !finals.has(message.id))
          .map((message) => [message.id, { state: message.state, content: message.content }]),
      ),
    });
  record();
  for (const event of events) {
    applyEvent(state, event);
    if (event.kind === 'message.completed')
      finals.set(event.payload.message.id, state.messages[event.payload.message.id]!);
    record();
  }

  it('shows at every seq exactly what folding the log from the start shows', () => {
    for (const seq of visits(timeline.lastSeq, timeline)) {
      const frame = timeline.frameAt(seq);
      const display = displayOf(
        {
          frame,
          head: timeline.frameAt(timeline.lastSeq).view,
          lastT: timeline.lastT,
          visibleCount: timeline.log.countAt(seq),
        },
        agents,
        null,
      );
      const truth = truths[seq]!;
      expect(display.agents, `agents at ${seq}`).toEqual(truth.agents);
      expect(display.counters.messages, `messages at ${seq}`).toBe(truth.messages);
      for (const node of display.graph.nodes)
        if (node.id in truth.agents)
          expect(node.data.status, `${node.id} at ${seq}`).toBe(truth.agents[node.id]);
      const visible = timeline.log.countAt(seq);
      expect(visible, `messages shown at ${seq}`).toBe(truth.shown);
      for (let index = 0; index < visible; index++) {
        const entry = timeline.log.entries[index]!;
        const shown = messageAtPlayhead(entry, display);
        const real = truth.open.get(entry.id) ?? finals.get(entry.id)!;
        expect(shown.state, `${entry.id} at ${seq}`).toBe(real.state);
        expect(shown.content, `${entry.id} at ${seq}`).toBe(real.content);
      }
      // The lanes show the same messages: one message row per transcript entry.
      const rows = lanes.rows.countAt(seq);
      let messageRows = 0;
      for (let row = 0; row < rows; row++) if (lanes.rows.kinds[row] === 'message') messageRows++;
      expect(messageRows, `lane rows at ${seq}`).toBe(visible);
    }
  }, 60_000);

  it('never shows a sender streaming beside its finished message', () => {
    for (const seq of timeline.messageSeqs) {
      const event = events[seq - 1]!;
      if (event.kind !== 'message.completed') continue;
      const from = event.payload.message.from;
      expect(timeline.frameAt(seq).view.agents[from] ?? 'idle', `${from} at ${seq}`).not.toBe('streaming');
    }
  });

  it('keeps a dropped message finished from its completion on', () => {
    const dropped = events.find((event) => event.kind === 'message.dropped');
    if (dropped?.kind !== 'message.dropped') throw new Error('fixture has no dropped message');
    const entry = timeline.log.entries[timeline.log.indexOf(dropped.payload.message.id)!]!;
    const completedAt = dropped.seq - 1;
    const display = displayOf(
      {
        frame: timeline.frameAt(completedAt),
        head: timeline.frameAt(timeline.lastSeq).view,
        lastT: 0,
        visibleCount: 0,
      },
      agents,
      null,
    );
    expect(messageAtPlayhead(entry, display).state).toBe('complete');
    expect(entry.droppedReason).toContain('nobody');
  });
});
