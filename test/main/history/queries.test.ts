import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryError, type HistoryStore, type ImportedEvent } from '../../../src-main/history';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';

const DAY = 86_400_000;

describe('history store: queries and changes', () => {
  let history: ReturnType<typeof openTempHistory>;
  let store: HistoryStore;
  let now = 10 * DAY;
  beforeEach(() => {
    now = 10 * DAY;
    history = openTempHistory({ batchMs: 10_000, now: () => now });
    store = history.store;
  });
  afterEach(() => history.cleanup());

  function runSession(
    title: string,
    contents: string[],
    status: 'completed' | 'failed' | null = 'completed',
  ): SessionScript {
    const s = new SessionScript();
    store.append(s.started(title, `Task of ${title}`));
    contents.forEach((content, i) => {
      const from = i % 2 === 0 ? 'alice' : 'bob';
      const to = i % 2 === 0 ? 'bob' : 'alice';
      for (const event of s.message(`${title}-${i}`, from, to, [content], {
        threadId: i < 2 ? 'main' : 'side',
        usage: { prompt: 2, completion: 3 },
      })) {
        store.append(event);
      }
    });
    if (status) store.append(s.stopped(status, status === 'failed' ? 'Provider error' : 'Done'));
    store.flush();
    now += DAY;
    return s;
  }

  it('lists sessions newest first with limit, offset and total', () => {
    const ids = ['one', 'two', 'three'].map((title) => runSession(title, ['x']).sessionId);
    const page = store.listSessions({ limit: 2 });
    expect(page.total).toBe(3);
    expect(page.items.map((item) => item.title)).toEqual(['three', 'two']);
    expect(store.listSessions({ limit: 2, offset: 2 }).items.map((item) => item.id)).toEqual([ids[0]]);
    expect(page.items[0]).toMatchObject({
      messageCount: 1,
      tokens: 5,
      status: 'completed',
      stopReason: 'Done',
    });
  });

  it('pages every sort in order, ties by id, walking an index with no sort step', () => {
    const insert = history.db.prepare(`INSERT INTO sessions (id, title, status, created_at, updated_at,
      tokens, cost) VALUES (?, ?, 'completed', ?, ?, ?, ?)`);
    // Equal cost, tokens, duration and creation time: only the id tells them apart.
    for (const id of ['c', 'a', 'd', 'b']) insert.run(id, id, 1000, 2000, 50, 0.5);
    for (const sort of ['created', 'cost', 'tokens', 'duration'] as const) {
      const pages = [0, 2].flatMap((offset) =>
        store.listSessions({ sort, limit: 2, offset }).items.map((item) => item.id),
      );
      expect(pages).toEqual(['a', 'b', 'c', 'd']);
      const column = { created: 'created_at', cost: 'cost', tokens: 'tokens', duration: 'duration_ms' }[sort];
      const plan = history.db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT * FROM sessions ORDER BY ${column === 'created_at' ? '' : `${column} DESC, `}created_at DESC, id LIMIT 50`,
        )
        .all() as Array<{ detail: string }>;
      const steps = plan.map((row) => row.detail).join('; ');
      expect(steps).toMatch(/USING INDEX sessions_by_/);
      expect(steps).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('filters by status, fleet, date range and tag', () => {
    const a = runSession('alpha', ['x'], 'failed');
    const b = runSession('beta', ['x']);
    const c = runSession('gamma', ['x'], null);
    store.setTags(b.sessionId, ['  demo ', 'demo', '', 'keep']);
    const titles = (query: Parameters<HistoryStore['listSessions']>[0]): string[] =>
      store.listSessions(query).items.map((i) => i.title);
    expect(titles({ status: 'failed' })).toEqual(['alpha']);
    expect(titles({ status: ['running', 'completed'] })).toEqual(['gamma', 'beta']);
    expect(titles({ fleetName: demoFleet.name })).toHaveLength(3);
    expect(titles({ fleetName: 'Other' })).toEqual([]);
    const created = (id: string) => store.getSession(id)?.summary.createdAt ?? 0;
    expect(titles({ from: created(b.sessionId), to: created(c.sessionId) })).toEqual(['beta']);
    expect(titles({ tag: 'demo' })).toEqual(['beta']);
    expect(store.getSession(b.sessionId)?.summary.tags).toEqual(['demo', 'keep']);
    expect(a.sessionId).toBeTruthy();
  });

  it('searches message content by word and prefix, and titles by substring', () => {
    runSession('weather', ['The forecast says rain tomorrow']);
    runSession('cooking', ['Preheat the oven', 'Café au lait']);
    const titles = (search: string) => store.listSessions({ search }).items.map((i) => i.title);
    expect(titles('forecast')).toEqual(['weather']);
    expect(titles('fore')).toEqual(['weather']);
    expect(titles('oven preheat')).toEqual(['cooking']);
    expect(titles('cafe')).toEqual(['cooking']);
    expect(titles('cook')).toEqual(['cooking']);
    expect(titles('nothing-like-this')).toEqual([]);
  });

  it.each([
    '"',
    '""',
    'rain"',
    'NEAR(rain',
    'rain OR',
    'AND',
    '*',
    'content:rain',
    '^rain',
    '(',
    ')',
    '-rain',
    '+',
    "'",
    'a"b"c',
    '\0',
    '%_\\',
  ])('never fails on FTS syntax in the search text: %j', (search) => {
    runSession('weather', ['The forecast says rain tomorrow']);
    expect(() => store.listSessions({ search })).not.toThrow();
  });

  it("indexes a message once it stops streaming, and a stopped run's partial text", () => {
    const s = new SessionScript();
    store.append(s.started('partial'));
    store.append(s.messageStarted('m1', 'alice', 'bob'));
    store.append(s.delta('m1', 'halfway through a sentence'));
    store.flush();
    expect(store.listSessions({ search: 'halfway' }).total).toBe(0);
    store.append(s.stopped('stopped', 'Stopped by user'));
    expect(store.listSessions({ search: 'halfway' }).total).toBe(1);
    expect(store.pageMessages(s.sessionId).items[0]).toMatchObject({
      state: 'partial',
      content: 'halfway through a sentence',
    });
  });

  it('treats FTS operators typed by the user as words', () => {
    runSession('logic', ['cats AND dogs']);
    runSession('plain', ['cats only']);
    expect(store.listSessions({ search: 'AND' }).items.map((i) => i.title)).toEqual(['logic']);
  });

  it('pages a session with before/after cursors by seq and by time', () => {
    const s = runSession(
      'long',
      Array.from({ length: 10 }, (_, i) => `message ${i}`),
    );
    const first = store.pageMessages(s.sessionId, { limit: 4 });
    expect(first.items.map((m) => m.content)).toEqual(['message 0', 'message 1', 'message 2', 'message 3']);
    expect(first).toMatchObject({ hasBefore: false, hasAfter: true });
    const next = store.pageMessages(s.sessionId, { limit: 4, after: { seq: first.items[3]!.seq } });
    expect(next.items.map((m) => m.content)).toEqual(['message 4', 'message 5', 'message 6', 'message 7']);
    expect(next).toMatchObject({ hasBefore: true, hasAfter: true });
    const last = store.pageMessages(s.sessionId, { limit: 4, from: 'end' });
    expect(last.items.map((m) => m.content)).toEqual(['message 6', 'message 7', 'message 8', 'message 9']);
    expect(last).toMatchObject({ hasBefore: true, hasAfter: false });
    const before = store.pageMessages(s.sessionId, { limit: 3, before: { seq: last.items[0]!.seq } });
    expect(before.items.map((m) => m.content)).toEqual(['message 3', 'message 4', 'message 5']);
    const byTime = store.pageMessages(s.sessionId, { limit: 2, after: { t: first.items[1]!.t } });
    expect(byTime.items.map((m) => m.content)).toEqual(['message 2', 'message 3']);
    const beforeTime = store.pageMessages(s.sessionId, { limit: 2, before: { t: first.items[1]!.t } });
    expect(beforeTime.items.map((m) => m.content)).toEqual(['message 0']);
    expect(beforeTime).toMatchObject({ hasBefore: false, hasAfter: true });
  });

  it('filters a page to one thread or one agent, and returns a thread', () => {
    const s = runSession('threads', ['a0', 'b1', 'a2', 'b3', 'a4']);
    expect(store.pageMessages(s.sessionId, { threadId: 'side' }).items.map((m) => m.content)).toEqual([
      'a2',
      'b3',
      'a4',
    ]);
    expect(store.pageMessages(s.sessionId, { agent: 'alice' }).items).toHaveLength(5);
    expect(store.pageMessages(s.sessionId, { agent: 'carol' }).items).toEqual([]);
    expect(store.getThread(s.sessionId, 'main').map((m) => [m.from, m.to, m.content])).toEqual([
      ['alice', 'bob', 'a0'],
      ['bob', 'alice', 'b1'],
    ]);
  });

  it('renames, tags and deletes a session with everything it owns', () => {
    const s = runSession('old title', ['kept', 'searchable']);
    expect(store.renameSession(s.sessionId, '  New title ').title).toBe('New title');
    expect(() => store.renameSession(s.sessionId, '   ')).toThrow(HistoryError);
    store.deleteSession(s.sessionId);
    expect(store.getSession(s.sessionId)).toBeNull();
    for (const table of ['events', 'messages', 'checkpoints']) {
      expect(history.db.prepare(`SELECT count(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    }
    expect(store.listSessions({ search: 'searchable' }).total).toBe(0);
    expect(history.db.prepare('SELECT count(*) AS n FROM messages_fts').get()).toEqual({ n: 0 });
    expect(() =>
      history.db.exec("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')"),
    ).not.toThrow();
    expect(() => store.deleteSession(s.sessionId)).toThrow(/No session/);
  });

  it('refuses to delete a session that is still running', () => {
    const s = runSession('live', ['x'], null);
    expect(() => store.deleteSession(s.sessionId)).toThrow(/Stop the session/);
  });

  it('names unknown and ambiguous ids clearly, and resolves unique prefixes', () => {
    const s = runSession('one', ['x']);
    expect(store.resolveSessionId(s.sessionId.slice(0, 8))).toBe(s.sessionId);
    expect(() => store.resolveSessionId('zzzz')).toThrow(/No session with id "zzzz"/);
    expect(() => store.resolveSessionId('')).toThrow(HistoryError);
    expect(() => store.pageMessages('nope')).toThrow(/No session/);
    expect(() => store.seek('nope', 3)).toThrow(/No session/);
    expect(store.getSession('nope')).toBeNull();
  });

  it('deletes finished sessions older than N days, keeping live ones', () => {
    const old = runSession('old', ['x']);
    const oldLive = runSession('old live', ['x'], null);
    now += 30 * DAY;
    const recent = runSession('recent', ['x']);
    expect(store.deleteSessionsOlderThan(7)).toEqual([old.sessionId]);
    expect(
      store
        .listSessions()
        .items.map((i) => i.id)
        .sort(),
    ).toEqual([oldLive.sessionId, recent.sessionId].sort());
  });

  it('tells the runtime when the per-session message cap is reached', () => {
    const s = runSession('capped', ['a', 'b', 'c'], null);
    expect(store.checkMessageCap(s.sessionId, null)).toMatchObject({ reached: false, stopReason: null });
    expect(store.checkMessageCap(s.sessionId, 5)).toMatchObject({ reached: false, count: 3 });
    expect(store.checkMessageCap(s.sessionId, 3)).toMatchObject({
      reached: true,
      stopReason: 'Reached the limit of 3 messages per session (set in Settings).',
    });
    expect(() => store.checkMessageCap('nope', 3)).toThrow(HistoryError);
  });

  it('saves, lists, gets and deletes fleets, refusing invalid ones', () => {
    const saved = store.saveFleet({ ...demoFleet, name: 'Research team' });
    expect(store.listFleets().map((f) => f.name)).toEqual(['Research team']);
    expect(store.getFleet(saved.id)?.fleet.name).toBe('Research team');
    now += 1000;
    const updated = store.saveFleet({ ...demoFleet, name: 'Renamed' }, saved.id);
    expect(updated).toMatchObject({
      id: saved.id,
      name: 'Renamed',
      createdAt: saved.createdAt,
      updatedAt: saved.createdAt + 1000,
    });
    expect(() => store.saveFleet({ ...demoFleet, agents: [] })).toThrow(/at agents/);
    expect(store.deleteFleet(saved.id)).toBe(true);
    expect(store.deleteFleet(saved.id)).toBe(false);
    expect(store.getFleet(saved.id)).toBeNull();
  });

  it('imports a session atomically as read-only, replayable like a live one', () => {
    const s = new SessionScript('ignored');
    const events: ImportedEvent[] = [
      s.started('Imported'),
      ...s.message('m1', 'user', 'alice', ['Hi']),
      ...s.message('m2', 'alice', 'user', ['Hello', ' there'], { usage: { prompt: 4, completion: 2 } }),
      s.messageStarted('m3', 'alice', 'user'),
      s.delta('m3', 'cut off'),
    ].map(({ sessionId: _s, seq: _q, ...rest }) => rest as ImportedEvent);
    const meta = {
      title: 'Imported',
      task: 't',
      fleetName: 'f',
      source: 'openai-messages',
      createdAt: 5000,
      tags: ['imported'],
    };
    const id = store.importSession(meta, events);
    const summary = store.getSession(id)?.summary;
    expect(summary).toMatchObject({
      readOnly: true,
      source: 'openai-messages',
      status: 'completed',
      messageCount: 2,
      tokens: 6,
      tags: ['imported'],
    });
    expect(store.countEvents(id)).toBe(events.length);
    expect([...store.iterateEvents(id)].map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(store.pageMessages(id).items.map((m) => [m.content, m.state])).toEqual([
      ['Hi', 'complete'],
      ['Hello there', 'complete'],
      ['cut off', 'partial'],
    ]);
    expect(() => store.append({ ...s.delta('m3', 'more'), sessionId: id, seq: 99 })).toThrow(/read-only/);

    function* failing(): Generator<ImportedEvent> {
      yield events[0]!;
      yield events[1]!;
      throw new Error('truncated file at byte 120');
    }
    const before = store.listSessions().total;
    expect(() => store.importSession(meta, failing())).toThrow('truncated file at byte 120');
    expect(store.listSessions().total).toBe(before);
  });

  it('announces what changed so views can refresh', () => {
    const changes: string[] = [];
    const stop = store.onDidChange((change) => changes.push(change.type));
    const s = runSession('watched', ['x']);
    store.renameSession(s.sessionId, 'renamed');
    store.deleteSession(s.sessionId);
    stop();
    store.saveFleet(demoFleet);
    expect(changes).toContain('sessions-changed');
    expect(changes.at(-1)).toBe('session-deleted');
  });
});
