import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-shared/domain';
import { MIGRATIONS, migrate, openHistory, STORE_FILE, type OpenedHistory } from '../../../src-main/history';
import {
  EventDecoder,
  SID_OF,
  STORED_EVENT_COLUMNS,
  type StoredEventRow,
} from '../../../src-main/history/event-codec';
import { Lineage } from '../../../src-main/history/lineage';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';
import { makeTempDir } from '../../helpers/temp-dir';
import { schema8SessionRow } from '../../helpers/old-schema';
import { sampleEvents } from '../interop/export/sample-session';

/**
 * The store reads the message rows a page of events refers to in one query. These check, on real
 * stores, that every reader gets the same events as with one lookup per referred row (the
 * previous path, kept as `decodeRowByRow`) and as were written.
 */

/** A session's stored rows as the store pages them (through a fork's parent), oldest first. */
function storedPages(history: OpenedHistory, sessionId: string, page = 512): StoredEventRow[][] {
  const range = history.db.prepare(
    `SELECT ${STORED_EVENT_COLUMNS} FROM event_log WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  );
  const pages: StoredEventRow[][] = [];
  for (const segment of new Lineage(history.db).segments(sessionId)) {
    for (let last = segment.after; ;) {
      const rows = range.all(segment.session, last, segment.upTo, page) as StoredEventRow[];
      if (rows.length > 0) pages.push(rows);
      if (rows.length < page) break;
      last = rows[rows.length - 1]!.seq;
    }
  }
  return pages;
}

/** The session's events decoded one referred row at a time. */
const rowByRow = (history: OpenedHistory, sessionId: string): RunEvent[] => {
  const decoder = new EventDecoder(history.db);
  return storedPages(history, sessionId).flatMap((rows) => decoder.decodeRowByRow(rows, sessionId));
};

const read = (history: OpenedHistory, sessionId: string): RunEvent[] => [
  ...history.store.iterateEvents(sessionId),
];

/** Everything the session view reads at `seq`: the view, the page before it, the events after it. */
const viewAt = (history: OpenedHistory, sessionId: string, seq: number) => ({
  view: history.store.seek(sessionId, seq),
  page: history.store.pageMessages(sessionId, { before: { seq: seq + 1 }, limit: 200 }).items,
  after: [...history.store.iterateEvents(sessionId, seq, seq + 200)],
});

/**
 * A live session with every kind of event that refers to a message row, in several commits, left
 * with a reply streaming when stopped.
 */
function recordLive(history: OpenedHistory): SessionScript {
  const s = new SessionScript();
  history.store.append(s.started('Live', 'Plan'));
  for (let turn = 0; turn < 40; turn += 1) {
    const from = turn % 2 === 0 ? 'alice' : 'bob';
    const to = from === 'alice' ? 'bob' : 'alice';
    const id = `m${turn}`;
    history.store.append(s.messageStarted(id, from, to, { threadId: `t${turn % 3}` }));
    for (const chunk of [`Turn ${turn}: `, 'héllo 👋 ', `and ${'more '.repeat(turn % 5)}`]) {
      history.store.append(s.delta(id, chunk, from));
      if (turn % 7 === 0) history.store.flush();
    }
    history.store.append(s.event({ kind: 'agent.status', payload: { status: 'thinking' } }, from));
    const completed = s.completed(id, from, to, `Turn ${turn}: héllo 👋 and ${'more '.repeat(turn % 5)}`, {
      threadId: `t${turn % 3}`,
      usage: { prompt: turn, completion: turn + 1 },
    });
    if (completed.kind === 'message.completed' && turn % 4 === 0)
      completed.payload.message.toolCalls = [{ id: `c${turn}`, name: 'search', arguments: '{}' }];
    history.store.append(completed);
    if (turn % 4 === 0)
      history.store.append(
        s.event(
          {
            kind: 'tool.requested',
            payload: { messageId: id, callId: `c${turn}`, name: 'search', arguments: '{}' },
          },
          from,
        ),
      );
    history.store.append(
      s.event({ kind: 'usage', payload: { messageId: id, usage: { prompt: 1, completion: 2 } } }, from),
    );
  }
  // One left streaming, one whose text is replaced by its completion (its events written whole).
  history.store.append(s.messageStarted('edited', 'alice', 'bob'));
  history.store.append(s.delta('edited', 'first draft', 'alice'));
  history.store.flush();
  history.store.append(s.completed('edited', 'alice', 'bob', 'final text'));
  history.store.append(s.messageStarted('open', 'bob', 'alice'));
  history.store.append(s.delta('open', 'still streaming', 'bob'));
  history.store.flush();
  history.store.append(s.stopped('stopped', 'user'));
  history.store.flush();
  return s;
}

describe('event decoding with the referred rows read in one query', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
  const open = () => {
    const history = openTempHistory({ checkpointInterval: 50, batchMs: 10_000 });
    cleanups.push(history.cleanup);
    return history;
  };

  it('reads a live session, an import over several pages and a fork as written and as row by row', () => {
    const history = open();
    const live = recordLive(history);
    const imported = history.store.importSession(
      { title: 'Imported', task: 'Review', fleetName: 'review-team', source: 'test', createdAt: 1, tags: [] },
      sampleEvents(600),
    );
    const fork = history.store.createFork({
      parentId: live.sessionId,
      atMessage: 30,
      text: 'Edited turn',
      fleet: demoFleet,
      changes: [],
    }).sessionId;
    const forkOfFork = history.store.createFork({
      parentId: fork,
      atMessage: 20,
      text: 'Edited again',
      fleet: demoFleet,
      changes: [],
    }).sessionId;

    expect(read(history, live.sessionId)).toEqual(live.events);
    expect(storedPages(history, imported).length).toBeGreaterThanOrEqual(3);
    for (const id of [live.sessionId, imported, fork, forkOfFork]) {
      const events = read(history, id);
      expect(events).toEqual(rowByRow(history, id));
      expect(events.every((event) => event.sessionId === id)).toBe(true);
    }
    // The fork reads its parent's rows (decoded against the parent's message rows) up to its point.
    const forkEvents = read(history, fork);
    const forkSeq = history.store.getSession(fork)!.summary.forkSeq!;
    expect(forkEvents.filter((event) => event.seq <= forkSeq)).toEqual(
      live.events.filter((event) => event.seq <= forkSeq).map((event) => ({ ...event, sessionId: fork })),
    );
    expect(forkEvents.some((event) => JSON.stringify(event.payload).includes('Edited turn'))).toBe(true);
    // Stored pages are smaller than the store's: decoding does not depend on where a page ends.
    const decoder = new EventDecoder(history.db);
    const small = storedPages(history, imported, 7).flatMap((rows) => decoder.decode(rows, imported));
    expect(small).toEqual(read(history, imported));
  });

  it('answers the view, page and events at a seq the same at every checkpoint distance', () => {
    const history = open();
    const live = recordLive(history);
    const last = history.store.lastEventSeq(live.sessionId);
    for (const seq of [1, 2, 49, 50, 51, 137, Math.floor(last / 2), last - 1, last]) {
      const at = viewAt(history, live.sessionId, seq);
      expect(at.after).toEqual(live.events.filter((event) => event.seq > seq && event.seq <= seq + 200));
      expect(at.view.seq).toBe(seq);
    }
  });

  it('still refuses an event whose message row is gone, naming the event', () => {
    const history = open();
    const live = recordLive(history);
    const rows = storedPages(history, live.sessionId)[0]!;
    const referring = rows.find((row) => row.msg !== null)!;
    const decoder = new EventDecoder(history.db);
    const orphan = { ...referring, msg: 987_654_321 };
    expect(() => decoder.decode([rows[0]!, orphan], live.sessionId)).toThrow(
      `Event ${referring.seq} refers to message row 987654321, which the store no longer has.`,
    );
    expect(() => decoder.decode([orphan], live.sessionId)).toThrow('which the store no longer has');
  });

  it('reads rows stored before migrations 9 and 10 as they are, beside rows stored after', () => {
    const source = open();
    const old = recordLive(source);
    // The session as schema 8 stored it: every payload whole, rows keyed by the text id.
    const temp = makeTempDir('fleetscope-decode-schema-8-');
    cleanups.push(() => temp.remove());
    const file = join(temp.dir, STORE_FILE);
    const db = new Database(file);
    migrate(db, MIGRATIONS.slice(0, 8));
    const session = source.db.prepare('SELECT * FROM sessions WHERE id = ?').get(old.sessionId) as Record<
      string,
      unknown
    >;
    const sessionRow = schema8SessionRow(session);
    const columns = Object.keys(sessionRow);
    const messageColumns = `id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta,
      tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t`;
    db.transaction(() => {
      db.prepare(
        `INSERT INTO sessions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ).run(...Object.values(sessionRow));
      const insertEvent = db.prepare(
        'INSERT INTO events (session_id, seq, t, kind, agent, payload) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const event of old.events)
        insertEvent.run(
          old.sessionId,
          event.seq,
          event.t,
          event.kind,
          event.agent,
          JSON.stringify(event.payload),
        );
      const insertMessage = db.prepare(
        `INSERT INTO messages (session_id, ${messageColumns}) VALUES (?, ${messageColumns
          .split(',')
          .map(() => '?')
          .join(', ')})`,
      );
      for (const row of source.db
        .prepare(`SELECT ${messageColumns} FROM messages WHERE session_id = ?`)
        .raw()
        .all(old.sessionId))
        insertMessage.run(old.sessionId, ...(row as unknown[]));
    })();
    db.close();

    const upgraded = openHistory(temp.dir, { recover: false, batchMs: 10_000 });
    cleanups.push(() => upgraded.close());
    expect(upgraded.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const stored = storedPages(upgraded, old.sessionId).flat();
    expect(stored.every((row) => row.msg === null)).toBe(true);
    expect(stored.some((row) => row.kind === 'agent.status' && row.payload.startsWith('{'))).toBe(true);
    expect(read(upgraded, old.sessionId)).toEqual(old.events);
    expect(rowByRow(upgraded, old.sessionId)).toEqual(old.events);

    // A session recorded after the upgrade refers to its rows, and a fork of the old session
    // reads the old rows whole, then its own compact ones.
    const next = recordLive(upgraded);
    expect(
      storedPages(upgraded, next.sessionId)
        .flat()
        .some((row) => row.msg !== null),
    ).toBe(true);
    expect(read(upgraded, next.sessionId)).toEqual(next.events);
    const fork = upgraded.store.createFork({
      parentId: old.sessionId,
      atMessage: 10,
      text: 'After the upgrade',
      fleet: demoFleet,
      changes: [],
    }).sessionId;
    expect(read(upgraded, fork)).toEqual(rowByRow(upgraded, fork));
    expect(
      read(upgraded, fork).some((event) => JSON.stringify(event.payload).includes('After the upgrade')),
    ).toBe(true);
  });
});
