import { describe, expect, it } from 'vitest';
import { foldEvents } from '@shared/domain';
import { Timeline, SNAPSHOT_EVERY } from '../../src-renderer/session/timeline';
import { foldFrame } from '../../src-renderer/session/frame';
import { agentsOfFleet, mapGraph } from '../../src-renderer/session/graph-mapper';
import { edgeKey } from '../../src-renderer/session/stats';
import { threadMessages } from '../../src-renderer/transcript/threading';
import { EventLog, threeAgents } from './session-fixture';

function conversation(): EventLog {
  const log = new EventLog().start();
  log.say('m1', 'user', 'planner', ['Write a haiku']);
  log.say('m2', 'planner', 'writer', ['Plan: ', 'five, seven, five'], { parentId: 'm1', tokens: 12 });
  log.say('m3', 'writer', 'critic', ['Old pond', ' / frog jumps'], { parentId: 'm2', tokens: 20 });
  log.add('writer', { kind: 'handoff', payload: { from: 'writer', to: 'critic', messageId: null } });
  log.add(null, {
    kind: 'routing.decision',
    payload: { candidates: ['critic', 'planner'], chosen: 'critic', reason: 'rule' },
  });
  log.say('m4', 'critic', '*', ['Fine.'], { parentId: 'm3', tokens: 5 });
  return log.stop();
}

describe('events to graph', () => {
  it('draws one node per fleet agent (no box for the user or broadcasts), and edges with counts', () => {
    const log = conversation();
    const graph = mapGraph(agentsOfFleet(threeAgents), foldFrame(log.events));
    expect(graph.nodes.map((node) => node.id)).toEqual(['planner', 'writer', 'critic', '@selector']);
    const writer = graph.nodes.find((node) => node.id === 'writer')!.data;
    expect(writer).toMatchObject({ role: 'writer role', model: 'scripted-1', messages: 1, tokens: 20 });
    const byId = Object.fromEntries(graph.edges.map((edge) => [edge.id, edge]));
    expect(byId[edgeKey('message', 'planner', 'writer')]?.data.count).toBe(1);
    expect(graph.edges.some((edge) => edge.source === 'user' || edge.target === '*')).toBe(false);
    expect(graph.nodes.find((node) => node.id === 'planner')?.data.fromUser).toBe(1);
    expect(graph.nodes.find((node) => node.id === 'critic')?.data.broadcasts).toBe(1);
    expect(byId[edgeKey('handoff', 'writer', 'critic')]?.data.kind).toBe('handoff');
    // The routing decision comes from the selector hub, not from the last speaker.
    expect(byId[edgeKey('routing', '@selector', 'critic')]?.data.kind).toBe('routing');
    expect(graph.broadcast).toMatchObject({ from: 'critic', to: ['planner', 'writer'] });
  });

  it('shows the text an agent is streaming on its node, and nothing once it completes', () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['go']);
    log.add('planner', {
      kind: 'message.started',
      payload: {
        messageId: 'm2',
        threadId: 't',
        parentId: 'm1',
        from: 'planner',
        to: 'writer',
        kind: 'text',
      },
    });
    log.add('planner', { kind: 'agent.status', payload: { status: 'streaming' } });
    log.add('planner', { kind: 'message.delta', payload: { messageId: 'm2', text: 'Half a tho' } });
    const streaming = mapGraph(agentsOfFleet(threeAgents), foldFrame(log.events));
    expect(streaming.nodes.find((node) => node.id === 'planner')?.data).toMatchObject({
      status: 'streaming',
      streaming: 'Half a tho',
    });
  });

  it('adds a node for a sender the fleet snapshot does not list', () => {
    const log = new EventLog().start();
    log.say('m1', 'stranger', 'planner', ['hi']);
    const graph = mapGraph(agentsOfFleet(threeAgents), foldFrame(log.events));
    expect(graph.nodes.map((node) => node.id)).toContain('stranger');
  });
});

describe('replay state at the playhead', () => {
  const log = conversation();
  const timeline = new Timeline();
  timeline.appendAll(log.events);

  it('matches a fresh fold of the same events at every seq (the same mapper live and replayed)', () => {
    const agents = agentsOfFleet(threeAgents);
    for (const seq of [0, 3, 5, 9, 14, timeline.lastSeq - 1, timeline.lastSeq, 7, 2]) {
      const expected = mapGraph(agents, foldFrame(log.events.slice(0, seq)));
      expect(mapGraph(agents, timeline.frameAt(seq))).toEqual(expected);
      expect(timeline.frameAt(seq).view.counters).toEqual(foldEvents(log.events.slice(0, seq)).counters);
    }
  });

  it('shows messages with the text they had at the playhead', () => {
    const m2 = timeline.log.entries[1]!;
    const deltaSeq = log.events.find(
      (event) => event.kind === 'message.delta' && event.payload.messageId === 'm2',
    )!.seq;
    expect(timeline.log.countAt(deltaSeq)).toBe(2);
    expect(timeline.messageAt(m2, timeline.frameAt(deltaSeq), deltaSeq).content).toBe('Plan: ');
    expect(timeline.messageAt(m2, timeline.frameAt(deltaSeq), deltaSeq).state).toBe('streaming');
    expect(timeline.messageAt(m2, timeline.frameAt(timeline.lastSeq), timeline.lastSeq)).toMatchObject({
      content: 'Plan: five, seven, five',
      state: 'complete',
    });
    expect(timeline.log.countAt(0)).toBe(0);
    expect(timeline.log.countAt(timeline.lastSeq)).toBe(4);
  });

  it('steps message by message and finds the seq at a recorded time', () => {
    const first = timeline.messageStep(0, 1);
    expect(log.events[first - 1]?.kind).toBe('message.completed');
    expect(timeline.messageStep(first, -1)).toBe(0);
    expect(timeline.seqAtTime(55)).toBe(5);
    expect(timeline.turns.get('writer')).toHaveLength(1);
  });

  it('refuses a gap and ignores a duplicate', () => {
    const copy = new Timeline();
    expect(copy.appendAll(log.events.slice(0, 4))).toBe('applied');
    expect(copy.append(log.events[2]!)).toBe('duplicate');
    expect(copy.append(log.events[6]!)).toBe('gap');
    expect(copy.lastSeq).toBe(4);
  });

  it('seeks anywhere in a long log through its snapshots', () => {
    const long = new EventLog().start();
    for (let i = 0; i < 600; i++)
      long.say(`m${i}`, i % 2 ? 'writer' : 'planner', 'critic', ['a', 'b'], { tokens: 1 });
    const big = new Timeline();
    big.appendAll(long.events);
    expect(big.lastSeq).toBeGreaterThan(SNAPSHOT_EVERY * 4);
    for (const seq of [big.lastSeq - 3, 17, SNAPSHOT_EVERY * 2 + 7, SNAPSHOT_EVERY * 3, 1200]) {
      expect(big.frameAt(seq).view.counters).toEqual(foldEvents(long.events.slice(0, seq)).counters);
    }
  });
});

describe('threading', () => {
  const ids = (rows: ReturnType<typeof threadMessages>, items: Array<{ id: string }>) =>
    rows.map((row) => `${items[row.index]!.id}@${row.depth}`);

  it('lists messages in log order (as the lanes do) and indents the replies of fan-outs', () => {
    const items = [
      { id: 'task', parentId: null, threadId: 't1' },
      { id: 'w1', parentId: 'task', threadId: 't1' },
      { id: 'other', parentId: null, threadId: 't2' },
      { id: 'w2', parentId: 'task', threadId: 't1' },
      { id: 'w1-reply', parentId: 'w1', threadId: 't1' },
    ];
    const rows = threadMessages(items);
    expect(ids(rows, items)).toEqual(['task@0', 'w1@1', 'other@0', 'w2@1', 'w1-reply@1']);
    expect(rows[0]).toMatchObject({ descendants: 3, threadStart: true });
  });

  it('keeps a plain chain of replies flat and treats unknown parents as thread starts', () => {
    const items = [
      { id: 'a', parentId: null, threadId: 't' },
      { id: 'b', parentId: 'a', threadId: 't' },
      { id: 'c', parentId: 'b', threadId: 't' },
      { id: 'd', parentId: 'gone', threadId: 't' },
    ];
    expect(ids(threadMessages(items), items)).toEqual(['a@0', 'b@0', 'c@0', 'd@0']);
  });

  it('hides the replies of a collapsed message', () => {
    const items = [
      { id: 'a', parentId: null, threadId: 't' },
      { id: 'b', parentId: 'a', threadId: 't' },
      { id: 'c', parentId: null, threadId: 'u' },
    ];
    const rows = threadMessages(items, new Set(['a']));
    expect(ids(rows, items)).toEqual(['a@0', 'c@0']);
    expect(rows[0]).toMatchObject({ collapsed: true, descendants: 1 });
  });

  it('threads 100k messages without overflowing the stack', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({
      id: `m${i}`,
      parentId: i ? `m${i - 1}` : null,
      threadId: 't',
    }));
    expect(threadMessages(items)).toHaveLength(100_000);
  });
});
