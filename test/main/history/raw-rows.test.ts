import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGE_ROW_COLUMNS, messageRows } from '../../../src-main/history/raw-rows';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';

describe('message rows read as arrays', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('gives every row of a real store as the driver names it, nulls and all', () => {
    const history = openTempHistory({ batchMs: 10_000 });
    cleanups.push(history.cleanup);
    const s = new SessionScript();
    history.store.append(s.started());
    for (const event of s.message('m1', 'alice', 'bob', ['Plan ', 'it'], {
      usage: { prompt: 3, completion: 2 },
    }))
      history.store.append(event);
    history.store.append(s.messageStarted('m2', 'bob', 'alice', { parentId: 'm1' }));
    const completed = s.completed('m2', 'bob', 'alice', 'With a tool', { parentId: 'm1', meta: { a: [1] } });
    if (completed.kind === 'message.completed')
      completed.payload.message.toolCalls = [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }];
    history.store.append(completed);
    history.store.append(s.messageStarted('m3', 'alice', 'bob'));
    history.store.append(s.delta('m3', 'cut off', 'alice'));
    history.store.append(s.stopped('stopped', 'user'));
    history.store.flush();
    history.store.createFork({
      parentId: s.sessionId,
      atMessage: 1,
      text: 'Edited',
      fleet: demoFleet,
      changes: [],
    });

    const named = history.db.prepare('SELECT * FROM messages ORDER BY pk').all() as Array<
      Record<string, unknown>
    >;
    const read = messageRows(
      history.db.prepare(`SELECT ${MESSAGE_ROW_COLUMNS} FROM messages ORDER BY pk`).raw().all(),
    );
    expect(read).toEqual(named.map(({ ended_t: _ended, ...row }) => row));
    expect(read.length).toBeGreaterThanOrEqual(4);
    expect(read.some((row) => row.tool_calls !== null && row.parent_id === 'm1')).toBe(true);
    expect(read.some((row) => row.prompt_tokens === 3 && row.completion_tokens === 2)).toBe(true);
    expect(read.some((row) => row.prompt_tokens === null && row.tool_calls === null)).toBe(true);
    // The page the session view reads at its end is these rows.
    const page = history.store.pageMessages(s.sessionId, { from: 'end', limit: 10 }).items;
    expect(page.map((message) => message.id)).toEqual(['m1', 'm2', 'm3']);
    expect(page[1]).toMatchObject({ toolCalls: [{ id: 'c1' }], meta: { a: [1] }, parentId: 'm1' });
    expect(page[0]).toMatchObject({ content: 'Plan it', usage: { prompt: 3, completion: 2 } });
  });
});
