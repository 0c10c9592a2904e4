import { afterEach, describe, expect, it } from 'vitest';
import { SessionScript, openTempHistory } from '../../helpers/temp-store';

describe('requests to runs carried through the store', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  function liveSession() {
    const opened = openTempHistory({ recover: false, heartbeatMs: 0 });
    cleanups.push(() => opened.cleanup());
    const script = new SessionScript();
    opened.store.append(script.started());
    opened.store.flush();
    return { store: opened.store, db: opened.db, sessionId: script.sessionId };
  }

  it('are open until handled once, keep their answer payload, and are gone once read', () => {
    const { store, sessionId } = liveSession();
    const requests = store.runRequests;
    const pause = requests.post(sessionId, 'pause');
    const answer = requests.post(sessionId, 'answer', { requestId: 'q1', text: 'Blue' });
    expect(requests.open()).toEqual([
      { id: pause, sessionId, kind: 'pause', answer: null },
      { id: answer, sessionId, kind: 'answer', answer: { requestId: 'q1', text: 'Blue' } },
    ]);
    expect(requests.outcome(pause)).toBeNull();

    requests.settle(pause, { ok: true, status: 'paused' });
    requests.settle(pause, { ok: false, code: 'conflict', message: 'second' });
    expect(requests.outcome(pause)).toEqual({ ok: true, status: 'paused' });
    expect(requests.open().map((request) => request.id)).toEqual([answer]);
    requests.remove(pause);
    expect(requests.outcome(pause)).toBeUndefined();
  });

  it('can be withdrawn only while unhandled, so a late owner cannot apply a request given up on', () => {
    const { store, sessionId } = liveSession();
    const requests = store.runRequests;
    const late = requests.post(sessionId, 'stop');
    expect(requests.withdraw(late)).toBe(true);
    requests.settle(late, { ok: true, status: 'stopped' });
    expect(requests.outcome(late)).toBeUndefined();
    expect(requests.open()).toEqual([]);

    const raced = requests.post(sessionId, 'stop');
    requests.settle(raced, { ok: true, status: 'stopped' });
    expect(requests.withdraw(raced)).toBe(false);
    expect(requests.outcome(raced)).toEqual({ ok: true, status: 'stopped' });
  });

  it('refuses a kind the table does not know and a session that does not exist, storing nothing', () => {
    const { store, db, sessionId } = liveSession();
    const requests = store.runRequests;
    expect(() => requests.post(sessionId, 'rewind' as 'pause')).toThrow(/CHECK/);
    expect(() => requests.post('no-such-session', 'pause')).toThrow(/FOREIGN KEY/);
    expect(db.prepare('SELECT count(*) AS n FROM run_requests').get()).toEqual({ n: 0 });
  });

  it('go with their session when it is deleted', () => {
    const { store, db, sessionId } = liveSession();
    store.runRequests.post(sessionId, 'pause');
    db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
    expect(db.prepare('SELECT count(*) AS n FROM run_requests').get()).toEqual({ n: 0 });
  });
});
