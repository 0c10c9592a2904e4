import { afterEach, describe, expect, it } from 'vitest';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

describe('a commit that fails', () => {
  const opened = openTempHistory({ batchMs: 1_000 });
  afterEach(() => opened.cleanup());

  it('keeps the batch and writes it, in order and without gaps, once the disk recovers', () => {
    const { store, db } = opened;
    const s = new SessionScript();
    store.append(s.started());
    // Simulate a disk that refuses writes for a while.
    db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE INSERT ON event_log BEGIN SELECT RAISE(ABORT, 'disk hiccup'); END`,
    );
    const [started, ...rest] = s.message('m1', 'alice', 'bob', ['Hel', 'lo']);
    store.append(started!);
    for (const event of rest) store.append(event);
    // The completion waits for its group commit; committing it now fails.
    expect(() => store.flush()).toThrow(/disk hiccup/);
    db.exec('DROP TRIGGER refuse');
    store.append(s.stopped());
    store.flush();

    const seqs = [...store.iterateEvents(s.sessionId)].map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(seqs.length).toBe(2 + rest.length + 1);
    const page = store.pageMessages(s.sessionId);
    expect(page.items.map((message) => [message.content, message.state])).toEqual([['Hello', 'complete']]);
    expect(store.getSession(s.sessionId)?.summary).toMatchObject({ status: 'completed', messageCount: 1 });
  });
});
