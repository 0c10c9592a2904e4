import { describe, expect, it } from 'vitest';
import type { Message, RunEvent } from '@shared/domain';
import { busySpans, firstError, longestWaits } from '../../src-renderer/lanes/activity';
import { LanesModel, laneOrder } from '../../src-renderer/lanes/lanes-model';
import { drawRow, type DrawContext } from '../../src-renderer/lanes/row-drawing';
import { gapHeight, RowOffsets, ROW_BASE, tailOf } from '../../src-renderer/lanes/lane-geometry';
import { Timeline } from '../../src-renderer/session/timeline';
import { windowAt } from '../../src-renderer/session/preview';
import { compactInPlace, foldEvents } from '@shared/domain';
import type { StoredMessage } from '@shared/contract';
import { pillState } from '../../src-renderer/ui/status-pill';
import { EventLog, threeAgents } from './session-fixture';

/** An event log whose events happen at the times given (ms), not 10 ms apart. */
class TimedLog extends EventLog {
  at = 0;
  override add(agent: string | null, body: Parameters<EventLog['add']>[1]): RunEvent {
    const event = super.add(agent, body);
    (event as { t: number }).t = this.at;
    return event;
  }
  status(
    agent: string,
    status: 'thinking' | 'streaming' | 'idle' | 'waiting-for-human' | 'error',
    at: number,
  ) {
    this.at = at;
    return this.add(agent, { kind: 'agent.status', payload: { status } });
  }
  /** A whole message (no streaming) from `from` to `to` at `at`. */
  send(id: string, from: string, to: string, at: number, extra: Partial<Message> = {}): RunEvent {
    this.at = at;
    const message: Message = {
      id,
      threadId: 'th1',
      parentId: null,
      from,
      to,
      kind: 'text',
      content: `${from} says ${id}`,
      meta: {},
      state: 'complete',
      t: at,
      ...extra,
    };
    return this.add(from, { kind: 'message.completed', payload: { message } });
  }
}

/** coder works 12 s on critic's request while critic waits; then critic reviews. */
function reviewLoop(): TimedLog {
  const log = new TimedLog();
  log.start();
  log.send('task', 'user', 'critic', 0);
  log.status('critic', 'thinking', 100);
  log.status('critic', 'streaming', 400);
  log.send('ask', 'critic', 'coder', 1_000);
  log.status('critic', 'idle', 1_050);
  log.status('coder', 'thinking', 1_100);
  log.status('coder', 'streaming', 5_000);
  log.send('code', 'coder', 'critic', 13_050);
  log.status('coder', 'idle', 13_060);
  log.status('critic', 'thinking', 13_050);
  log.status('critic', 'streaming', 13_500);
  log.send('ok', 'critic', 'user', 14_000);
  log.status('critic', 'idle', 14_010);
  log.at = 14_020;
  log.stop();
  return log;
}

describe('busy time and waits (pure functions over events)', () => {
  it('turns agent statuses into busy bars, settling a sender when its message completes', () => {
    const spans = busySpans(reviewLoop().events);
    expect(spans.get('critic')?.map((span) => [span.kind, span.startT, span.endT])).toEqual([
      ['thinking', 100, 400],
      ['streaming', 400, 1_000],
      ['thinking', 13_050, 13_500],
      ['streaming', 13_500, 14_000],
    ]);
    expect(spans.get('coder')?.map((span) => [span.kind, span.startT, span.endT])).toEqual([
      ['thinking', 1_100, 5_000],
      ['streaming', 5_000, 13_050],
    ]);
  });

  it('says who waited for whom, longest first', () => {
    const waits = longestWaits(reviewLoop().events);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ agent: 'critic', ms: 12_050, forAgents: ['coder'] });
    // The wait ends where critic got busy again: a click seeks there.
    const end = reviewLoop().events.find((event) => event.seq === waits[0]?.endSeq);
    expect(end).toMatchObject({ kind: 'agent.status', agent: 'critic', t: 13_050 });
  });

  it('counts tool calls and waits for a person as busy time of their own', () => {
    const log = new TimedLog().start();
    log.status('bot', 'thinking', 0);
    log.send('call', 'bot', 'bot', 100, {
      kind: 'function',
      toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{}' }],
    });
    log.at = 110;
    log.add('bot', {
      kind: 'tool.requested',
      payload: { messageId: 'call', callId: 'c1', name: 'calculator', arguments: '{}' },
    });
    log.at = 2_110;
    log.add('bot', {
      kind: 'tool.executed',
      payload: { callId: 'c1', name: 'calculator', result: '4', isError: true },
    });
    log.status('bot', 'idle', 2_200);
    log.at = 3_000;
    log.add('me', { kind: 'human.requested', payload: { requestId: 'r1', prompt: 'Colour?' } });
    log.status('me', 'waiting-for-human', 3_000);
    log.at = 9_000;
    log.add('me', { kind: 'human.given', payload: { requestId: 'r1', text: 'Blue' } });
    log.status('me', 'idle', 9_000);
    const spans = busySpans(log.events);
    expect(spans.get('bot')?.map((span) => [span.kind, span.startT, span.endT])).toEqual([
      ['thinking', 0, 110],
      ['tool', 110, 2_110],
      ['thinking', 2_110, 2_200],
    ]);
    expect(spans.get('me')?.map((span) => [span.kind, span.endT - span.startT])).toEqual([['human', 6_000]]);
    expect(firstError(log.events)).toMatchObject({ t: 2_110, text: 'calculator failed: 4' });
  });

  it('finds the first error: an error event, a failed agent, an error message or a failed run', () => {
    const log = new TimedLog().start();
    log.send('m1', 'user', 'bot', 10);
    expect(firstError(log.events)).toBeNull();
    log.at = 500;
    log.add('bot', {
      kind: 'error',
      payload: { code: 'rate-limited', message: 'Too many requests\nretry later' },
    });
    log.status('bot', 'error', 600);
    const found = firstError(log.events);
    expect(found).toEqual({ seq: 3, t: 500, agent: 'bot', text: 'bot: Too many requests' });
    const failed = new TimedLog().start();
    failed.at = 40;
    failed.add(null, {
      kind: 'session.stopped',
      payload: { status: 'failed', stopReason: 'error', detail: 'The provider refused the key.' },
    });
    expect(firstError(failed.events)?.text).toBe('the run failed: The provider refused the key.');
  });

  it('reports no wait when nobody else was busy meanwhile', () => {
    const log = new TimedLog().start();
    log.status('solo', 'thinking', 0);
    log.status('solo', 'idle', 100);
    log.status('solo', 'thinking', 5_000);
    log.status('solo', 'idle', 5_100);
    expect(longestWaits(log.events)).toEqual([]);
  });

  it('names everyone who kept a waiting agent waiting, up to three', () => {
    const log = new TimedLog().start();
    log.status('a', 'streaming', 0);
    log.status('a', 'idle', 100);
    for (const [index, name] of ['b', 'c', 'd'].entries()) {
      log.status(name, 'streaming', 100 + index * 1_000);
      log.status(name, 'idle', 1_100 + index * 1_000);
    }
    log.status('a', 'streaming', 3_100);
    const [wait] = longestWaits(log.events);
    expect(wait?.agent).toBe('a');
    expect(wait?.ms).toBe(3_000);
    expect(wait?.forAgents).toEqual(['b', 'c', 'd']);
  });
});

describe('the lens model', () => {
  function modelOf(log: EventLog): { model: LanesModel; timeline: Timeline } {
    const timeline = new Timeline();
    const model = LanesModel.forTimeline(timeline);
    // In two slices, as a long log loads.
    const half = Math.floor(log.events.length / 2);
    timeline.appendAll(log.events.slice(0, half));
    model.ingest();
    timeline.appendAll(log.events.slice(half));
    model.ingest();
    return { model, timeline };
  }

  it('has one row per transcript entry, in the order the entries appear, plus marks', () => {
    const log = new EventLog().start();
    log.say('m1', 'user', '*', ['Write a haiku']);
    log.say('m2', 'planner', 'writer', ['Five, ', 'seven, ', 'five']);
    log.add('planner', { kind: 'handoff', payload: { from: 'planner', to: 'writer', messageId: 'm2' } });
    log.add('writer', { kind: 'error', payload: { code: 'x', message: 'broke' } });
    log.add('writer', { kind: 'handoff', payload: { from: 'writer', to: 'critic', messageId: null } });
    log.say('m3', 'critic', 'ghost', ['hello?']);
    const dropped = log.events[log.events.length - 2];
    if (dropped?.kind !== 'message.completed') throw new Error('fixture');
    log.add('critic', {
      kind: 'message.dropped',
      payload: { message: dropped.payload.message, reason: 'no ghost' },
    });
    const { model, timeline } = modelOf(log);
    const { rows } = model;
    expect(rows.kinds).toEqual(['message', 'message', 'error', 'handoff', 'message']);
    const messageRows = rows.refs.filter((_, index) => rows.kinds[index] === 'message');
    expect(messageRows.map((ref) => timeline.log.entries[ref]?.id)).toEqual(['m1', 'm2', 'm3']);
    expect(rows.handoffMessages.has('m2')).toBe(true);
    for (let seq = 0; seq <= timeline.lastSeq; seq++) {
      const shown = rows.refs.filter(
        (ref, index) => rows.kinds[index] === 'message' && index < rows.countAt(seq),
      );
      expect(shown.length).toBe(timeline.log.countAt(seq));
    }
    expect(model.names).toEqual(['user', 'planner', 'writer', 'critic']);
    expect(rows.rowOfMessage(2, timeline.log.entries[2]!.startSeq)).toBe(4);
  });

  it('draws tool calls and results on the calling agent whoever they address, and a fan-out with a head at every worker', () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['Write a haiku']);
    const call = log.say('c1', 'planner', 'user', [''], { kind: 'function' });
    call.toolCalls = [{ id: 'x', name: 'lookup', arguments: '{}' }];
    log.say('r1', 'planner', 'user', ['found'], { kind: 'tool' });
    const plan = log.say('p1', 'planner', 'writer', ['Each of you: one line.']);
    plan.meta = { alsoTo: ['critic'] };
    const { model, timeline } = modelOf(log);
    const columns = new Map(
      ['user', 'planner', 'writer', 'critic'].map(
        (name, i) => [name, { name, x: 100 + i * 200, color: '#000' }] as const,
      ),
    );
    const context: DrawContext = {
      model,
      columns,
      laneWidth: 200,
      totalWidth: 900,
      messageAt: (entry) => entry.final as Message,
      seq: timeline.lastSeq,
    };
    const drawn = Array.from({ length: model.rows.size }, (_, index) => drawRow(context, index));
    const byId = (id: string) => drawn.find((row) => row.messageId === id);
    const x = (name: string) => columns.get(name)?.x;
    for (const id of ['c1', 'r1']) {
      expect(byId(id)).toMatchObject({ style: 'tool', line: null, heads: [], dot: x('planner') });
    }
    expect(byId('m1')?.heads.map((head) => head.x)).toEqual([x('planner')]);
    expect(byId('p1')?.heads.map((head) => head.x)).toEqual([x('writer'), x('critic')]);
  });

  it('says it changed for rows, busy spans and lanes, not for text that only streams', () => {
    const log = new EventLog().start();
    const timeline = new Timeline();
    const model = LanesModel.forTimeline(timeline);
    const take = (events: RunEvent[]) => {
      timeline.appendAll(events);
      return model.ingest();
    };
    expect(take(log.events.slice())).toBe(false);
    const started = log.events.length;
    log.say('m1', 'planner', 'writer', ['one ', 'two ', 'three']);
    // status streaming, started, three deltas, completed, status idle
    const said = log.events.slice(started);
    expect(said.map((event) => event.kind)).toEqual([
      'agent.status',
      'message.started',
      'message.delta',
      'message.delta',
      'message.delta',
      'message.completed',
      'agent.status',
    ]);
    expect(take(said.slice(0, 1))).toBe(true); // planner's lane and busy span
    expect(take(said.slice(1, 2))).toBe(true); // the message's row
    expect(take(said.slice(2, 5))).toBe(false); // text only
    expect(model.rows.size).toBe(1);
    expect(take(said.slice(5, 6))).toBe(true); // the sender settles: its span ends
    expect(take(said.slice(6))).toBe(false); // idle already
    // With the lens hidden, rows wait; a later ingest with rows catches up and says so.
    log.say('m2', 'writer', 'critic', ['a']);
    timeline.appendAll(log.events.slice(timeline.lastSeq));
    expect(model.ingest(false)).toBe(true);
    expect(model.rows.size).toBe(1);
    expect(model.ingest(true)).toBe(true);
    expect(model.rows.size).toBe(2);
    expect(model.ingest(true)).toBe(false);
  });

  it('draws a window of a long log from its start alone, agreeing with the transcript', () => {
    const log = new EventLog().start();
    for (let i = 0; i < 30; i++)
      log.say(`m${i}`, ['planner', 'writer', 'critic'][i % 3]!, 'writer', [`text ${i} `, 'more']);
    // writer is still streaming when the window starts.
    log.add('writer', { kind: 'agent.status', payload: { status: 'streaming' } });
    log.add('writer', {
      kind: 'message.started',
      payload: {
        messageId: 'open',
        threadId: 'th1',
        parentId: null,
        from: 'writer',
        to: 'critic',
        kind: 'text',
      },
    });
    log.add('writer', { kind: 'message.delta', payload: { messageId: 'open', text: 'half' } });
    const base = log.events.length;
    log.add('writer', { kind: 'message.delta', payload: { messageId: 'open', text: ' done' } });
    for (let i = 30; i < 40; i++) log.say(`m${i}`, ['planner', 'critic'][i % 2]!, 'writer', [`text ${i}`]);
    log.stop();
    // The store's view at `base` and a page of the ten messages completed before it.
    const view = foldEvents(log.events.slice(0, base));
    compactInPlace(view);
    const page: StoredMessage[] = log.events.flatMap((event) =>
      event.kind === 'message.completed' && event.seq <= base
        ? [{ ...event.payload.message, seq: event.seq, droppedReason: null }]
        : [],
    );
    const window = windowAt(view, page.slice(-10));
    const model = LanesModel.forTimeline(window);
    // Before any event of the window: the page and the message in flight, in the log's order.
    const ids = () =>
      model.rows.refs
        .filter((_, i) => model.rows.kinds[i] === 'message')
        .map((ref) => window.log.entries[ref]?.id);
    expect(ids()).toEqual([...page.slice(-10).map((message) => message.id), 'open']);
    expect(model.activity.spansOf('writer')).toEqual([
      expect.objectContaining({ kind: 'streaming', startSeq: base, endSeq: Infinity }),
    ]);
    window.appendAll(log.events.slice(base));
    expect(model.ingest()).toBe(true);
    expect(ids()).toEqual([
      ...page.slice(-10).map((message) => message.id),
      'open',
      ...Array.from({ length: 10 }, (_, i) => `m${30 + i}`),
    ]);
    for (let seq = base; seq <= window.lastSeq; seq++) {
      const shown = model.rows.kinds.filter((kind, i) => kind === 'message' && i < model.rows.countAt(seq));
      expect(shown.length).toBe(window.log.countAt(seq));
    }
    // A model made once the window already holds events draws the same rows.
    const late = LanesModel.forTimeline(window);
    late.ingest();
    expect(late.rows.refs).toEqual(model.rows.refs);
    expect(late.rows.seqs).toEqual(model.rows.seqs);
    // writer's bar ends when its message completes; names come from the window alone.
    const writer = model.activity.spansOf('writer')[0]!;
    expect(writer.endSeq).toBeLessThan(Infinity);
    expect(model.names).toEqual(expect.arrayContaining(['planner', 'writer', 'critic']));
  });

  it('orders lanes: the user, the fleet in its order, then others as first seen', () => {
    const fleet = threeAgents.agents.map((agent) => agent.name);
    expect(laneOrder(fleet, ['critic', 'user', 'stranger', '*', 'planner'])).toEqual([
      'user',
      'planner',
      'writer',
      'critic',
      'stranger',
    ]);
    expect(laneOrder(fleet, ['stranger'])).toEqual(['planner', 'writer', 'critic', 'stranger']);
  });

  it('gives pauses height (more for longer, within bounds) and places busy time between rows by time', () => {
    expect(gapHeight(100)).toBe(0);
    expect(gapHeight(1_000)).toBeGreaterThan(gapHeight(400));
    expect(gapHeight(12_000)).toBeGreaterThan(gapHeight(1_000));
    expect(gapHeight(3_600_000)).toBeLessThanOrEqual(56);
    const { model } = modelOf(reviewLoop());
    const rows = model.rows;
    const offsets = new RowOffsets(rows);
    offsets.update();
    expect(offsets.start(1) - offsets.start(0)).toBe(ROW_BASE);
    const second = offsets.start(2) - offsets.start(1);
    const third = offsets.start(3) - offsets.start(2);
    expect(third).toBeGreaterThan(second);
    const tail = tailOf(rows, rows.size, 1_000_000, 20_000);
    // coder's streaming began at 5 s: between the rows at 1 s and 13 s, ordered by time.
    const askSeq = rows.seqs[1] as number;
    const early = offsets.yOf(askSeq + 1, 1_100, rows.size, tail);
    const later = offsets.yOf(askSeq + 2, 5_000, rows.size, tail);
    expect(early).toBeGreaterThan(offsets.arrowY(1));
    expect(later).toBeGreaterThan(early);
    expect(later).toBeLessThan(offsets.arrowY(2));
  });

  it('finds the row at a height among the rows shown, for drawing only the rows in the pane', () => {
    const { model } = modelOf(reviewLoop());
    const { rows, offsets } = model;
    expect(rows.size).toBeGreaterThan(3);
    for (let index = 0; index < rows.size; index++) {
      expect(offsets.indexAt(offsets.start(index), rows.size)).toBe(index);
      expect(offsets.indexAt(offsets.start(index + 1) - 0.5, rows.size)).toBe(index);
    }
    // Above the first row, below the last, and below the last of fewer rows shown.
    expect(offsets.indexAt(-100, rows.size)).toBe(0);
    expect(offsets.indexAt(offsets.start(rows.size) + 500, rows.size)).toBe(rows.size - 1);
    expect(offsets.indexAt(offsets.start(rows.size), 2)).toBe(1);
    expect(offsets.indexAt(0, 0)).toBe(-1);
  });
});

describe('the status pill', () => {
  it('says replaying and where while the playhead is behind, live when following a run, else the status', () => {
    expect(pillState('completed', { seq: 12, lastSeq: 340 })).toMatchObject({
      label: 'Replaying · 12/340',
      status: 'replaying',
    });
    expect(pillState('running', { seq: 12, lastSeq: 340 }).label).toBe('Replaying · 12/340');
    expect(pillState('running', { seq: 340, lastSeq: 340 })).toMatchObject({ label: 'Live', mode: 'live' });
    expect(pillState('paused', { seq: 340, lastSeq: 340 }).label).toBe('Paused');
    expect(pillState('completed', { seq: 340, lastSeq: 340 }).label).toBe('Completed');
    expect(pillState('failed', { seq: 0, lastSeq: 0 }).label).toBe('Failed');
    expect(pillState('running').label).toBe('Running');
    expect(pillState(null).label).toBe('–');
  });
});
