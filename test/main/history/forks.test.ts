import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldEvents, fleetSchema, type RunEvent } from '@shared/domain';
import { HistoryError } from '../../../src-main/history';
import { exportToStream } from '../../../src-main/interop/export';
import { importFile } from '../../../src-main/interop/import';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';
import { Writable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Forks by reference in the store: a fork holds its own events only, and every read (events,
 * messages in both directions and by time, threads, seek, edges, search, export) goes through
 * its parent's history up to the fork point, for forks of forks too.
 */
describe('forks in the store', () => {
  let history: ReturnType<typeof openTempHistory>;
  let parent: SessionScript;

  beforeEach(() => {
    history = openTempHistory({ checkpointInterval: 4 });
    parent = new SessionScript();
    const s = parent;
    for (const event of [
      s.started('Picnic', 'Plan a picnic'),
      ...s.message('m1', 'user', '*', ['Plan a picnic'], { kind: 'task' }),
      ...s.message('m2', 'alice', '*', ['Sandwiches ', 'and tea'], { usage: { prompt: 5, completion: 4 } }),
      // bob starts streaming before carol; carol completes first (parallel streams).
      s.messageStarted('m3', 'bob', '*'),
      s.delta('m3', 'Blankets', 'bob'),
      ...s.message('m4', 'carol', '*', ['A park by the lake'], { usage: { prompt: 7, completion: 6 } }),
      s.delta('m3', ' and chairs', 'bob'),
      s.completed('m3', 'bob', '*', 'Blankets and chairs'),
      ...s.message('m5', 'alice', 'bob', ['Saturday works'], { threadId: 't2' }),
      s.stopped('completed', 'max-messages'),
    ])
      history.store.append(event);
    history.store.flush();
  });
  afterEach(() => history.cleanup());

  const contents = (id: string) =>
    history.store
      .pageMessages(id, { limit: 1000 })
      .items.map((message) => `${message.from}:${message.content}`);
  const eventCount = () => (history.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;

  it('forks at message 3 without copying the prefix; the fork reads through it everywhere', () => {
    const before = eventCount();
    // show numbers messages by their completion: 1 task, 2 alice, 3 carol, 4 bob, 5 alice.
    expect(history.store.messageAt(parent.sessionId, 3)?.content).toBe('A park by the lake');
    const fork = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 3,
      fleet: demoFleet,
      changes: [],
    });
    // Its own events only: the fork marker and the stop until it runs.
    expect(eventCount() - before).toBe(2);
    expect(contents(fork.sessionId)).toEqual([
      'user:Plan a picnic',
      'alice:Sandwiches and tea',
      'carol:A park by the lake',
    ]);
    const summary = history.store.getSession(fork.sessionId)?.summary;
    expect(summary).toMatchObject({
      status: 'stopped',
      stopReason: 'forked',
      messageCount: 3,
      tokens: 22,
      forkOf: { sessionId: parent.sessionId, atMessage: 3 },
      family: { rootId: parent.sessionId, size: 2, forks: 0 },
    });
    expect(history.store.getSession(parent.sessionId)?.summary.family).toEqual({
      rootId: parent.sessionId,
      size: 2,
      forks: 1,
    });

    // Events: the parent's up to the fork point, then the fork's own, numbered on, under its id.
    const events = [...history.store.iterateEvents(fork.sessionId)];
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.every((event) => event.sessionId === fork.sessionId)).toBe(true);
    expect(history.store.countEvents(fork.sessionId)).toBe(events.length);
    expect(events.at(-2)).toMatchObject({ kind: 'session.started', seq: fork.forkSeq + 1 });

    // The fold drops bob's reply, still streaming at the fork point, and its usage.
    const view = foldEvents(events);
    expect(view.order.map((id) => view.messages[id]?.content)).toEqual([
      'Plan a picnic',
      'Sandwiches and tea',
      'A park by the lake',
    ]);
    expect(view.counters.promptTokens + view.counters.completionTokens).toBe(22);
    // seek, at a seq inside the prefix (the parent's checkpoints) and at the end (the fork's own).
    const inPrefix = history.store.seek(fork.sessionId, 6);
    expect(inPrefix).toEqual(history.store.seek(parent.sessionId, 6));
    const atEnd = history.store.seek(fork.sessionId, events.length);
    expect(atEnd.status).toBe('stopped');
    expect(Object.keys(atEnd.messages)).toEqual([]);

    // Paging backwards from the end and by time gives the same messages.
    const last = history.store.pageMessages(fork.sessionId, { from: 'end', limit: 2 });
    expect(last.items.map((message) => message.content)).toEqual([
      'Sandwiches and tea',
      'A park by the lake',
    ]);
    expect(last.hasBefore).toBe(true);
    const byTime = history.store.pageMessages(fork.sessionId, { after: { t: 0 }, limit: 10 });
    expect(byTime.items).toHaveLength(3);
    expect(history.store.getThread(fork.sessionId, 'main').map((message) => message.id)).toEqual([
      'm1',
      'm2',
      'm4',
    ]);
    expect(
      history.store.edgeStats(fork.sessionId).agents.find((agent) => agent.name === 'carol'),
    ).toMatchObject({
      messages: 1,
      tokens: 13,
    });
    expect(history.store.edgeStats(fork.sessionId).agents.some((agent) => agent.name === 'bob')).toBe(false);

    // Search finds the fork by what it shares with its parent, not by what it does not share.
    const lake = history.store.listSessions({ search: 'lake' }).items.map((item) => item.id);
    expect(lake.sort()).toEqual([parent.sessionId, fork.sessionId].sort());
    expect(history.store.listSessions({ search: 'Saturday' }).items.map((item) => item.id)).toEqual([
      parent.sessionId,
    ]);
  });

  it('forks at a message with a new text: the fork keeps everything before it and restates it', () => {
    const fork = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 2,
      text: 'Pizza instead',
      fleet: demoFleet,
      changes: [{ field: 'text', agent: 'alice', summary: 'message 2 edited' }],
    });
    const messages = history.store.pageMessages(fork.sessionId).items;
    expect(messages.map((message) => `${message.from}:${message.content}`)).toEqual([
      'user:Plan a picnic',
      'alice:Pizza instead',
    ]);
    expect(messages[1]?.id).not.toBe('m2');
    expect(messages[1]?.meta).toMatchObject({ editedFrom: 'm2' });
    expect(messages[1]?.usage).toBeUndefined();
    expect(history.store.getSession(fork.sessionId)?.summary).toMatchObject({ messageCount: 2, tokens: 0 });
    // alice's streamed original is not in the fork's view either.
    const view = foldEvents(history.store.iterateEvents(fork.sessionId));
    expect(view.order.map((id) => view.messages[id]?.content)).toEqual(['Plan a picnic', 'Pizza instead']);
  });

  it('forks of forks read through both parents, and a fork can be cut inside the prefix it shares', () => {
    const first = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 4,
      fleet: demoFleet,
      changes: [],
    });
    const second = history.store.createFork({
      parentId: first.sessionId,
      atMessage: 4,
      text: 'Blankets only',
      fleet: demoFleet,
      changes: [],
    });
    const third = history.store.createFork({
      parentId: second.sessionId,
      atMessage: 2,
      fleet: demoFleet,
      changes: [],
    });
    expect(contents(second.sessionId)).toEqual([
      'user:Plan a picnic',
      'alice:Sandwiches and tea',
      'carol:A park by the lake',
      'bob:Blankets only',
    ]);
    expect(contents(third.sessionId)).toEqual(['user:Plan a picnic', 'alice:Sandwiches and tea']);
    const family = history.store.family(third.sessionId);
    expect(family.rootId).toBe(parent.sessionId);
    expect(family.nodes.map((node) => [node.sessionId, node.depth, node.forks])).toEqual([
      [parent.sessionId, 0, 1],
      [first.sessionId, 1, 1],
      [second.sessionId, 2, 1],
      [third.sessionId, 3, 0],
    ]);
    const events = [...history.store.iterateEvents(third.sessionId)];
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('refuses to delete a parent with forks (nothing changes) and deletes it once its forks are gone', () => {
    const fork = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 3,
      fleet: demoFleet,
      changes: [],
    });
    const before = eventCount();
    expect(() => history.store.deleteSession(parent.sessionId)).toThrow(/1 fork that share its history/);
    expect(eventCount()).toBe(before);
    expect(contents(fork.sessionId)).toHaveLength(3);
    history.store.deleteSession(fork.sessionId);
    history.store.deleteSession(parent.sessionId);
    expect(history.store.listSessions().total).toBe(0);
  });

  it('retention deletes an old family leaf first and keeps parents whose forks are young', () => {
    const fork = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 3,
      fleet: demoFleet,
      changes: [],
    });
    history.db
      .prepare('UPDATE sessions SET created_at = 0, stored_at = 0 WHERE id = ?')
      .run(parent.sessionId);
    expect(history.store.deleteSessionsOlderThan(1)).toEqual([]);
    expect(history.store.listSessions().total).toBe(2);
    history.db.prepare('UPDATE sessions SET created_at = 0, stored_at = 0').run();
    expect(history.store.deleteSessionsOlderThan(1)).toEqual([fork.sessionId, parent.sessionId]);
    expect(history.store.listSessions().total).toBe(0);
  });

  it('refuses bad fork points with a clear error and writes nothing', () => {
    const before = eventCount();
    expect(() =>
      history.store.createFork({ parentId: parent.sessionId, atMessage: 9, fleet: demoFleet, changes: [] }),
    ).toThrow(/has 5 messages; there is no message 9/);
    expect(() =>
      history.store.createFork({ parentId: 'nope', atMessage: 1, fleet: demoFleet, changes: [] }),
    ).toThrow(HistoryError);
    const live = new SessionScript();
    history.store.append(live.started('Live'));
    history.store.flush();
    expect(() =>
      history.store.createFork({ parentId: live.sessionId, atMessage: 1, fleet: demoFleet, changes: [] }),
    ).toThrow(/still running/);
    expect(eventCount()).toBe(before + 1);
    expect(history.store.listSessions().total).toBe(2);
  });

  it('exports a fork self-contained: the JSON re-imports as one session with the same transcript', async () => {
    const fork = history.store.createFork({
      parentId: parent.sessionId,
      atMessage: 3,
      text: 'A beach',
      fleet: fleetSchema.parse({ ...demoFleet, name: 'Forked fleet' }),
      changes: [],
    });
    let json = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        json += chunk.toString();
        done();
      },
    });
    await exportToStream(history.store, fork.sessionId, 'json', out);
    const file = join(history.dir, 'fork.json');
    writeFileSync(file, json);
    const imported = await importFile(file, history.store);
    const copy = history.store.getSession(imported.sessionId)?.summary;
    expect(copy).toMatchObject({ forkOf: null, readOnly: true, messageCount: 3 });
    expect(contents(imported.sessionId)).toEqual(contents(fork.sessionId));
    expect(history.store.getSession(imported.sessionId)?.fleet).toMatchObject({ name: 'Forked fleet' });
    // The copy stands alone: deleting the parent's family does not touch it.
    history.store.deleteSession(fork.sessionId);
    history.store.deleteSession(parent.sessionId);
    expect(contents(imported.sessionId)).toEqual([
      'user:Plan a picnic',
      'alice:Sandwiches and tea',
      'carol:A beach',
    ]);
    const events: RunEvent[] = [...history.store.iterateEvents(imported.sessionId)];
    expect(events.filter((event) => event.kind === 'session.started')).toHaveLength(2);
  });
});
