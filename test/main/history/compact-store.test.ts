import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-shared/domain';
import { openHistory } from '../../../src-main/history';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

/** The event_log rows of one session, as stored. */
function storedRows(history: ReturnType<typeof openTempHistory>, sessionId: string) {
  return history.db
    .prepare(
      `SELECT seq, kind, msg, payload FROM event_log
       WHERE sid = (SELECT sid FROM sessions WHERE id = ?) ORDER BY seq`,
    )
    .all(sessionId) as Array<{ seq: number; kind: string; msg: number | null; payload: string }>;
}

const readBack = (history: ReturnType<typeof openTempHistory>, sessionId: string): RunEvent[] => [
  ...history.store.iterateEvents(sessionId),
];

describe('history store: message text stored once', () => {
  const opened: Array<{ cleanup(): void }> = [];
  afterEach(() => opened.splice(0).forEach((item) => item.cleanup()));
  const open = () => {
    const history = openTempHistory({ batchMs: 10_000 });
    opened.push(history);
    return history;
  };

  it('keeps the text in the message row only and reads every event back as it was written', () => {
    const history = open();
    const s = new SessionScript();
    history.store.append(s.started());
    history.store.append(s.messageStarted('m1', 'alice', 'bob', { threadId: 't1', parentId: 'm0' }));
    // Commits between deltas (offsets in UTF-16 units, as JavaScript counts).
    for (const chunk of ['Hél', 'lo 👋', '😀 wörld and a long tail of streamed text']) {
      history.store.append(s.delta('m1', chunk, 'alice'));
      history.store.flush();
    }
    const text = 'Héllo 👋😀 wörld and a long tail of streamed text';
    const completed = s.completed('m1', 'alice', 'bob', text, {
      threadId: 't1',
      parentId: 'm0',
      usage: { prompt: 12, completion: 7 },
      meta: { thoughts: 'x' },
    });
    if (completed.kind === 'message.completed')
      completed.payload.message.toolCalls = [
        { id: 'c0', name: 'search', arguments: '{"q":"other"}' },
        { id: 'c1', name: 'search', arguments: '{}' },
      ];
    history.store.append(completed);
    history.store.append(
      s.event(
        {
          kind: 'tool.requested',
          payload: { messageId: 'm1', callId: 'c1', name: 'search', arguments: '{}' },
        },
        'alice',
      ),
    );
    history.store.append(
      s.event({ kind: 'usage', payload: { messageId: 'm1', usage: { prompt: 13, completion: 8 } } }, 'alice'),
    );
    history.store.append(
      s.event({ kind: 'handoff', payload: { from: 'alice', to: 'bob', messageId: 'm1' } }, 'alice'),
    );
    history.store.append(
      s.event({ kind: 'error', payload: { code: 'x', message: 'no message id' } }, 'alice'),
    );
    history.store.append(s.stopped());
    history.store.flush();

    expect(readBack(history, s.sessionId)).toEqual(s.events);
    const rows = storedRows(history, s.sessionId);
    expect(rows.map((row) => [row.kind, row.payload])).toEqual([
      ['session.started', expect.stringContaining('"fleet"')],
      ['message.started', ''],
      ['message.delta', '[0,3]'],
      ['message.delta', '[3,5]'],
      ['message.delta', '[8,41]'],
      ['message.completed', '[12,7]'],
      ['tool.requested', '[1]'],
      ['usage', '[13,8]'],
      ['handoff', '{"from":"alice","to":"bob"}'],
      ['error', '{"code":"x","message":"no message id"}'],
      ['session.stopped', expect.stringContaining('completed')],
    ]);
    expect(rows.filter((row) => row.payload.includes('wörld'))).toEqual([]);
  });

  it('writes a message’s earlier events out whole before a completion changes its text or envelope', () => {
    const history = open();
    const s = new SessionScript();
    history.store.append(s.started());
    history.store.append(s.messageStarted('m1', 'alice', 'bob'));
    history.store.append(s.delta('m1', 'Hello wor', 'alice'));
    history.store.flush();
    history.store.append(s.delta('m1', 'ld', 'alice'));
    // Other text than streamed, and another receiver.
    history.store.append(s.completed('m1', 'alice', 'carol', 'Goodbye'));
    history.store.append(s.messageStarted('m2', 'bob', 'alice'));
    history.store.append(s.delta('m2', 'Same', 'bob'));
    const first = s.completed('m2', 'bob', 'alice', 'Same text, longer');
    if (first.kind === 'message.completed')
      first.payload.message.toolCalls = [{ id: 'x', name: 'run', arguments: '1' }];
    history.store.append(first);
    for (const args of ['1', '2'])
      history.store.append(
        s.event(
          { kind: 'tool.requested', payload: { messageId: 'm2', callId: 'x', name: 'run', arguments: args } },
          'bob',
        ),
      );
    // A second completion of m2 with other text and no calls: the first one's events keep theirs.
    history.store.append(s.completed('m2', 'bob', 'alice', 'Changed'));
    history.store.append(s.stopped());
    history.store.flush();

    expect(readBack(history, s.sessionId)).toEqual(s.events);
    const rows = storedRows(history, s.sessionId);
    const m1 = rows.filter((row) => row.seq >= 2 && row.seq <= 5);
    expect(m1.map((row) => row.msg)).toEqual([null, null, null, expect.any(Number)]);
    expect(m1[1]?.payload).toBe('{"messageId":"m1","text":"Hello wor"}');
    expect(history.store.pageMessages(s.sessionId).items.map((m) => [m.to, m.content])).toEqual([
      ['carol', 'Goodbye'],
      ['alice', 'Changed'],
    ]);
  });

  it('stores deltas whole from one that SQLite would not give back exactly (a split surrogate pair)', () => {
    const history = open();
    const s = new SessionScript();
    history.store.append(s.started());
    history.store.append(s.messageStarted('m1', 'alice', 'bob'));
    for (const chunk of ['ok ', '\ud83d', '\ude00 end']) {
      history.store.append(s.delta('m1', chunk, 'alice'));
      history.store.flush();
    }
    history.store.append(s.completed('m1', 'alice', 'bob', 'ok 😀 end'));
    history.store.append(s.messageStarted('m2', 'bob', 'alice'));
    history.store.append(s.completed('m2', 'bob', 'alice', 'lone \udc00 surrogate'));
    history.store.append(s.stopped());
    history.store.flush();
    expect(readBack(history, s.sessionId)).toEqual(s.events);
    const payloads = storedRows(history, s.sessionId).map((row) => row.payload);
    expect(payloads.slice(3, 5)).toEqual([
      '{"messageId":"m1","text":"\\ud83d"}',
      '{"messageId":"m1","text":"\\ude00 end"}',
    ]);
  });

  it('keeps the text of replies a second session.started drops (an imported fork point)', () => {
    const history = open();
    const s = new SessionScript();
    const events = [
      s.started(),
      ...s.message('m1', 'alice', 'bob', ['kept ', 'text']),
      s.messageStarted('m2', 'bob', 'alice'),
      s.delta('m2', 'branch not taken', 'bob'),
      s.started('Again'),
      ...s.message('m3', 'alice', 'bob', ['after']),
      s.stopped(),
    ];
    const id = history.store.importSession(
      { title: 'x', task: 'y', fleetName: 'f', source: 'test', createdAt: 1, tags: [] },
      events.map(({ sessionId: _s, seq: _q, ...event }) => event),
    );
    const back = readBack(history, id);
    expect(back).toEqual(events.map((event) => ({ ...event, sessionId: id })));
    expect(history.store.pageMessages(id).items.map((m) => m.content)).toEqual(['kept text', 'after']);
  });

  it('goes on from a message another process left streaming (offsets read from its row)', () => {
    const history = open();
    const s = new SessionScript();
    history.store.append(s.started());
    history.store.append(s.messageStarted('m1', 'alice', 'bob'));
    history.store.append(s.delta('m1', 'first half, ', 'alice'));
    history.store.flush();
    history.close();

    const again = openHistory(history.dir, { recover: false, batchMs: 10_000 });
    try {
      again.store.append(s.delta('m1', 'second half', 'alice'));
      again.store.append(s.completed('m1', 'alice', 'bob', 'first half, second half'));
      again.store.append(s.stopped());
      again.store.flush();
      expect([...again.store.iterateEvents(s.sessionId)]).toEqual(s.events);
    } finally {
      again.close();
    }
  });
});
