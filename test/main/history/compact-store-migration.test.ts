import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openHistory, STORE_FILE, type OpenedHistory } from '../../../src-main/history';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';
import { makeTempDir } from '../../helpers/temp-dir';
import { schema8SessionRow } from '../../helpers/old-schema';
import { sampleEvents } from '../interop/export/sample-session';

const OLD_MESSAGE_COLUMNS = `pk, session_id, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta,
  tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t`;

/**
 * Writes `source`'s sessions into a store at schema 8 as the writer before migration 9 stored
 * them: every event's whole payload as JSON, message rows keyed by the session's text id, the
 * full-text rows of messages that no longer stream, and the checkpoints.
 */
function writeSchema8Store(file: string, source: OpenedHistory): void {
  const old = new Database(file);
  migrate(old, MIGRATIONS.slice(0, 8));
  const sessions = source.db.prepare('SELECT * FROM sessions ORDER BY created_at').all() as Array<
    Record<string, unknown> & { id: string; fork_seq: number | null }
  >;
  old.transaction(() => {
    for (const session of sessions) {
      const row = schema8SessionRow(session);
      const columns = Object.keys(row);
      old
        .prepare(`INSERT INTO sessions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
        .run(...Object.values(row));
    }
    const insertEvent = old.prepare(
      'INSERT INTO events (session_id, seq, t, kind, agent, payload) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const session of sessions) {
      // Only its own events: a fork's prefix is its parent's rows.
      for (const event of source.store.iterateEvents(session.id, session.fork_seq ?? 0))
        insertEvent.run(
          session.id,
          event.seq,
          event.t,
          event.kind,
          event.agent,
          JSON.stringify(event.payload),
        );
    }
    const insertMessage = old.prepare(
      `INSERT INTO messages (${OLD_MESSAGE_COLUMNS}) VALUES (${OLD_MESSAGE_COLUMNS.split(',')
        .map(() => '?')
        .join(', ')})`,
    );
    for (const row of source.db.prepare(`SELECT ${OLD_MESSAGE_COLUMNS} FROM messages`).raw().all())
      insertMessage.run(...(row as unknown[]));
    const insertFts = old.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    for (const row of source.db
      .prepare("SELECT pk, content FROM messages WHERE state <> 'streaming'")
      .all() as Array<{ pk: number; content: string }>)
      insertFts.run(row.pk, row.content);
    const insertCheckpoint = old.prepare('INSERT INTO checkpoints (session_id, seq, state) VALUES (?, ?, ?)');
    for (const row of source.db.prepare('SELECT session_id, seq, state FROM checkpoints').raw().all())
      insertCheckpoint.run(...(row as unknown[]));
  })();
  expect(old.pragma('user_version', { simple: true })).toBe(8);
  old.close();
}

/** Everything a surface reads of a session. */
function readingsOf(history: OpenedHistory, id: string) {
  const { summary } = history.store.getSession(id)!;
  return {
    summary,
    events: [...history.store.iterateEvents(id)],
    messages: history.store.pageMessages(id, { limit: 1000 }).items,
    byAgent: history.store.pageMessages(id, { agent: 'bob', limit: 1000 }).items,
    edges: history.store.edgeStats(id),
    seek: history.store.seek(id, 7),
    family: history.store.family(id),
  };
}

describe('migration 9 (compact store) on a store written by schema 8', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('reads sessions, forks and search as before, and goes on writing compactly', () => {
    const source = openTempHistory({ checkpointInterval: 5, batchMs: 10_000 });
    cleanups.push(source.cleanup);
    const imported = source.store.importSession(
      {
        title: 'Imported',
        task: 'Review',
        fleetName: 'review-team',
        source: 'test',
        createdAt: 1000,
        tags: ['a'],
      },
      sampleEvents(40, (index) => `Message ${index} about zebra${index % 3}`),
    );
    const s = new SessionScript();
    for (const event of [
      s.started('Live', 'Plan'),
      ...s.message('m1', 'user', 'alice', ['Plan a ', 'picnic'], { kind: 'task' }),
      ...s.message('m2', 'alice', 'bob', ['Sandwiches ', 'and tea'], { usage: { prompt: 5, completion: 4 } }),
      ...s.message('m3', 'bob', 'alice', ['Blankets'], { threadId: 't2' }),
      s.messageStarted('m4', 'alice', 'bob'),
      s.delta('m4', 'cut off', 'alice'),
      s.stopped('stopped', 'user'),
    ])
      source.store.append(event);
    source.store.flush();
    const fork = source.store.createFork({
      parentId: s.sessionId,
      atMessage: 3,
      text: 'Crisps',
      fleet: demoFleet,
      changes: [],
    }).sessionId;
    const ids = [imported, s.sessionId, fork];
    const before = ids.map((id) => readingsOf(source, id));
    const search = source.store.listSessions({ search: 'zebra2' }).items.map((item) => item.id);
    expect(search).toEqual([imported]);

    const temp = makeTempDir('fleetscope-migration-9-');
    cleanups.push(() => temp.remove());
    writeSchema8Store(join(temp.dir, STORE_FILE), source);

    const upgraded = openHistory(temp.dir, { recover: false, batchMs: 10_000 });
    cleanups.push(() => upgraded.close());
    expect(upgraded.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(ids.map((id) => readingsOf(upgraded, id))).toEqual(before);
    expect(upgraded.store.listSessions({ search: 'zebra2' }).items.map((item) => item.id)).toEqual(search);
    expect(upgraded.store.listSessions({ search: 'Crisps' }).items.map((item) => item.id)).toEqual([fork]);
    expect(upgraded.store.messageAt(fork, 2)?.content).toBe('Sandwiches and tea');

    // A new session gets a key of its own and is stored compactly; the old ones are unchanged.
    const next = new SessionScript();
    const events = [
      next.started('After', 'Go on'),
      ...next.message('n1', 'alice', 'bob', ['new ', 'text']),
      next.stopped(),
    ];
    for (const event of events) upgraded.store.append(event);
    upgraded.store.flush();
    expect([...upgraded.store.iterateEvents(next.sessionId)]).toEqual(events);
    const sids = upgraded.db.prepare('SELECT sid FROM sessions ORDER BY sid').all() as Array<{ sid: number }>;
    expect(new Set(sids.map((row) => row.sid)).size).toBe(4);
    const compact = upgraded.db
      .prepare("SELECT count(*) AS n FROM event_log WHERE msg IS NOT NULL AND payload NOT LIKE '%text%'")
      .get() as { n: number };
    expect(compact.n).toBe(4);
    expect(ids.map((id) => readingsOf(upgraded, id))).toEqual(before);

    // The old live session goes on: its old rows and the new compact ones read back together.
    const more = [
      s.event({ kind: 'session.continued', payload: { task: 'More', context: {} } }),
      ...s.message('m5', 'bob', 'alice', ['more ', 'text']),
      s.event(
        {
          kind: 'tool.requested',
          payload: { messageId: 'm2', callId: 'c9', name: 'search', arguments: '{}' },
        },
        'alice',
      ),
      s.completed('m2', 'alice', 'bob', 'Sandwiches, completed again'),
      s.stopped(),
    ];
    for (const event of more) upgraded.store.append(event);
    upgraded.store.flush();
    expect([...upgraded.store.iterateEvents(s.sessionId)]).toEqual([...before[1]!.events, ...more]);
    // The fork reads the parent's events up to its fork point as they were.
    expect([...upgraded.store.iterateEvents(fork)]).toEqual(before[2]!.events);

    // Deleting a session takes its rows (and only its rows) with it.
    upgraded.store.deleteSession(imported);
    expect(upgraded.store.listSessions({ search: 'zebra2' }).total).toBe(0);
    const left = upgraded.db.prepare('SELECT count(DISTINCT sid) AS n FROM message_rows').get() as {
      n: number;
    };
    expect(left.n).toBe(3);
    expect(readingsOf(upgraded, fork).events).toEqual(before[2]!.events);
  });
});
