import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents, compactView } from '../../../src-shared/domain';
import { HistoryError, openHistory, STORE_FILE } from '../../../src-main/history';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

/** A second connection sees only what was committed. */
function committed(dir: string, sql: string, ...params: unknown[]): unknown {
  const reader = new Database(join(dir, STORE_FILE), { readonly: true });
  try {
    return reader.prepare(sql).get(...params);
  } finally {
    reader.close();
  }
}

describe('history store: live writes', () => {
  const opened: Array<{ cleanup(): void }> = [];
  afterEach(() => opened.splice(0).forEach((item) => item.cleanup()));
  const open = (options: Parameters<typeof openTempHistory>[0] = {}) => {
    const history = openTempHistory({ batchMs: 10_000, ...options });
    opened.push(history);
    return history;
  };

  it('groups deltas into one commit (flush or the window); completions, starts and ends commit at once', () => {
    const { store, dir } = open();
    const s = new SessionScript();
    const durable: string[] = [];
    store.append(s.started());
    store.whenDurable(() => durable.push('after start'));
    expect(durable).toEqual(['after start']); // nothing was waiting: called at once
    store.append(s.messageStarted('m1', 'alice', 'bob'));
    store.append(s.delta('m1', 'Hel'));
    store.append(s.delta('m1', 'lo'));
    store.whenDurable(() => durable.push('after Hello'));
    const count = (): number =>
      (committed(dir, 'SELECT count(*) AS n FROM events WHERE session_id = ?', s.sessionId) as { n: number })
        .n;
    expect(count()).toBe(1); // only session.started, committed at once
    expect(durable).toEqual(['after start']);
    store.flush();
    expect(count()).toBe(4);
    expect(durable).toEqual(['after start', 'after Hello']);
    expect(committed(dir, 'SELECT content, state FROM messages WHERE id = ?', 'm1')).toEqual({
      content: 'Hello',
      state: 'streaming',
    });
    store.append(s.delta('m1', '!'));
    store.append(s.completed('m1', 'alice', 'bob', 'Hello!', { usage: { prompt: 7, completion: 3 } }));
    // A completion does not wait for the window: it commits at once, with the delta before it
    // (a paid-for reply is on disk before the run can start its next model call).
    expect(count()).toBe(6);
    store.whenDurable(() => durable.push('after completion'));
    expect(durable.at(-1)).toBe('after completion');
    expect(committed(dir, 'SELECT content, state, seq FROM messages WHERE id = ?', 'm1')).toEqual({
      content: 'Hello!',
      state: 'complete',
      seq: 6,
    });
    expect(
      committed(dir, 'SELECT message_count, tokens, status FROM sessions WHERE id = ?', s.sessionId),
    ).toEqual({
      message_count: 1,
      tokens: 10,
      status: 'running',
    });
    // The end of a session commits at once, with everything still buffered before it.
    store.append(s.messageStarted('m2', 'bob', 'alice'));
    store.append(s.stopped('completed', 'done'));
    expect(count()).toBe(8);
  });

  it('commits buffered deltas on its own after the batch interval', async () => {
    const { store, dir } = open({ batchMs: 20 });
    const s = new SessionScript();
    store.append(s.started());
    store.append(s.messageStarted('m1', 'alice', 'bob'));
    store.append(s.delta('m1', 'streamed'));
    const content = () => committed(dir, 'SELECT content FROM messages WHERE id = ?', 'm1');
    expect(content()).toBeUndefined(); // still buffered
    // No flush() call: the batch timer commits the delta on its own, whenever it gets to run.
    await expect.poll(content, { timeout: 5_000, interval: 10 }).toEqual({ content: 'streamed' });
  });

  it('keeps the session row in step: status, stop reason, end time, counts and tokens', () => {
    let now = 1_000_000;
    const { store } = open({ now: () => now });
    const s = new SessionScript();
    for (const event of [
      s.started('Plan a trip', 'Find flights'),
      ...s.message('m1', 'user', 'alice', ['Find ', 'flights'], { usage: { prompt: 1, completion: 2 } }),
      ...s.message('m2', 'alice', '*', ['On it'], { usage: { prompt: 10, completion: 5 } }),
    ]) {
      store.append(event);
    }
    store.append(
      s.event({ kind: 'usage', payload: { messageId: 'm2', usage: { prompt: 10, completion: 8 } } }, 'alice'),
    );
    store.append(s.stopped('stopped', 'Max messages reached'));
    now += 5_000;
    const session = store.getSession(s.sessionId);
    expect(session?.summary).toMatchObject({
      title: 'Plan a trip',
      task: 'Find flights',
      fleetName: 'Demo fleet',
      status: 'stopped',
      stopReason: 'Max messages reached',
      messageCount: 2,
      tokens: 21,
      createdAt: 1_000_000 - 10,
      endedAt: 1_000_000 - 10 + s.t,
      durationMs: s.t,
      readOnly: false,
      source: 'live',
    });
    expect(session?.fleet).toMatchObject({ name: 'Demo fleet' });
  });

  it('refuses events that cannot belong to the log, without buffering them', () => {
    const { store } = open();
    const s = new SessionScript();
    expect(() => store.append(s.messageStarted('m1', 'a', 'b'))).toThrow(HistoryError);
    const fresh = new SessionScript();
    store.append(fresh.started());
    const first = fresh.messageStarted('m1', 'alice', 'bob');
    store.append(first);
    expect(() => store.append(first)).toThrow(/not after/);
    store.flush();
    expect(store.countEvents(fresh.sessionId)).toBe(2);
  });

  it('writes a checkpoint every N events, and seek matches a full fold at any point', () => {
    const { store, db } = open({ checkpointInterval: 7 });
    const s = new SessionScript();
    store.append(s.started());
    for (let i = 0; i < 12; i += 1) {
      for (const event of s.message(`m${i}`, i % 2 ? 'alice' : 'bob', 'alice', ['a', 'b', 'c'], {
        usage: { prompt: 1, completion: 1 },
      })) {
        store.append(event);
      }
    }
    store.append(s.messageStarted('open', 'alice', 'bob'));
    store.append(s.delta('open', 'half'));
    store.flush();
    const checkpoints = db
      .prepare('SELECT seq FROM checkpoints WHERE session_id = ? ORDER BY seq')
      .all(s.sessionId);
    expect(checkpoints.length).toBe(Math.floor(s.seq / 7));
    for (const seq of [1, 6, 7, 8, 20, 35, s.seq - 1, s.seq]) {
      const expected = compactView(foldEvents(s.events.slice(0, seq)));
      expect(store.seek(s.sessionId, seq)).toEqual(expected);
    }
    expect(store.seek(s.sessionId, s.seq).messages.open?.content).toBe('half');
  });

  it('continues a finished session written by an earlier store instance', () => {
    const first = open();
    const s = new SessionScript();
    for (const event of [s.started(), ...s.message('m1', 'user', 'alice', ['one']), s.stopped()])
      first.store.append(event);
    first.close();
    const again = openHistory(first.dir, { batchMs: 10_000 });
    opened.unshift({ cleanup: () => again.close() });
    again.store.append(s.event({ kind: 'session.continued', payload: { task: 'Again', context: {} } }));
    for (const event of s.message('m2', 'user', 'alice', ['two'])) again.store.append(event);
    again.store.flush();
    expect(again.store.getSession(s.sessionId)?.summary).toMatchObject({
      status: 'running',
      messageCount: 2,
      endedAt: null,
    });
  });
});
