import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { MIGRATIONS, migrate, openHistory, STORE_FILE, type OpenedHistory } from '../../../src-main/history';
import { EventDecoder, type StoredEventRow } from '../../../src-main/history/event-codec';
import { demoFleet, openTempHistory, SessionScript } from '../../helpers/temp-store';
import { makeTempDir } from '../../helpers/temp-dir';
import { sampleEvents } from '../interop/export/sample-session';

const SESSION_COLUMNS = `id, title, task, fleet_name, fleet_json, status, stop_reason, created_at, updated_at,
  ended_at, message_count, tokens, parent_session_id, fork_seq, tags, source, read_only, fork_message,
  fork_changes, root_session_id, source_hash, sid`;
const MESSAGE_COLUMNS = `pk, sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta,
  tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t, first_seq`;
const placeholders = (columns: string) =>
  columns
    .split(',')
    .map(() => '?')
    .join(', ');

/**
 * Writes `source`'s rows into a store at schema 9 as the writer before migration 10 stored them:
 * every event's kind by its name, and the payload of an event that refers to no message row as
 * the payload's JSON (events that refer to a row are stored the same way by both versions).
 */
function writeSchema9Store(file: string, source: OpenedHistory): void {
  const old = new Database(file);
  migrate(old, MIGRATIONS.slice(0, 9));
  const decoder = new EventDecoder(source.db);
  const copy = (columns: string, from: string, into: string) => {
    const insert = old.prepare(`INSERT INTO ${into} (${columns}) VALUES (${placeholders(columns)})`);
    for (const row of source.db.prepare(`SELECT ${columns} FROM ${from}`).raw().all())
      insert.run(...(row as unknown[]));
  };
  old.transaction(() => {
    copy(SESSION_COLUMNS, 'sessions', 'sessions');
    copy(MESSAGE_COLUMNS, 'message_rows', 'message_rows');
    copy('session_id, seq, state', 'checkpoints', 'checkpoints');
    const insertEvent = old.prepare(
      'INSERT INTO event_log (sid, seq, t, kind, agent, msg, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const rows = source.db
      .prepare('SELECT sid, seq, t, kind, agent, msg, payload FROM event_log ORDER BY sid, seq')
      .all() as Array<StoredEventRow & { sid: number }>;
    for (const row of rows) {
      const payload = row.msg === null ? JSON.stringify(decoder.payloadOf(row)) : row.payload;
      insertEvent.run(row.sid, row.seq, row.t, row.kind, row.agent, row.msg, payload);
    }
    const insertFts = old.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    for (const row of source.db
      .prepare("SELECT pk, content FROM message_rows WHERE state <> 'streaming'")
      .all() as Array<{ pk: number; content: string }>)
      insertFts.run(row.pk, row.content);
  })();
  expect(old.pragma('user_version', { simple: true })).toBe(9);
  expect(old.prepare('SELECT count(*) AS n FROM event_log WHERE length(kind) = 1').get()).toEqual({ n: 0 });
  old.close();
}

/** Everything a surface reads of a session. */
function readingsOf(history: OpenedHistory, id: string) {
  const { summary } = history.store.getSession(id)!;
  return {
    summary,
    events: [...history.store.iterateEvents(id)],
    messages: history.store.pageMessages(id, { limit: 1000 }).items,
    edges: history.store.edgeStats(id),
    seek: history.store.seek(id, 9),
    family: history.store.family(id),
    turns: history.store.turnIndex(id, { agent: 'alice', aroundSeq: 9, limit: 100 }),
    figures: [...history.store.comparing.agentFigures(id)],
    lastStop: history.store.comparing.lastStop(id),
  };
}

/** The live run both stores hold: statuses, a tool round trip (one failing), an error, a stop. */
function liveRun(s: SessionScript): RunEvent[] {
  return [
    s.started('Live', 'Plan'),
    s.event({ kind: 'session.status', payload: { status: 'running' } }),
    s.event({ kind: 'agent.status', payload: { status: 'thinking' } }, 'alice'),
    ...s.message('m1', 'user', 'alice', ['Plan a ', 'picnic'], { kind: 'task' }),
    s.event({ kind: 'agent.status', payload: { status: 'waiting-for-human' } }, 'alice'),
    ...s.message('m2', 'alice', 'bob', ['Sandwiches ', 'and tea'], { usage: { prompt: 5, completion: 4 } }),
    s.event(
      {
        kind: 'tool.executed',
        payload: { callId: 'c1', name: 'search', result: 'a "quoted"\nresult ü', isError: true },
      },
      'alice',
    ),
    s.event(
      { kind: 'tool.executed', payload: { callId: 'c2', name: 'fetch', result: '', isError: false } },
      'bob',
    ),
    s.event(
      { kind: 'error', payload: { code: 'provider-timeout', message: 'slow', messageId: null } },
      'bob',
    ),
    s.event({ kind: 'agent.status', payload: { status: 'idle' } }, 'bob'),
    s.stopped('stopped', 'user'),
  ];
}

describe('migration 10 (short event kinds) on a store written by schema 9', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('reads every session as before, finds errors, and stores new events with codes', () => {
    const source = openTempHistory({ checkpointInterval: 5, batchMs: 10_000 });
    cleanups.push(source.cleanup);
    const imported = source.store.importSession(
      {
        title: 'Imported',
        task: 'Review',
        fleetName: 'review-team',
        source: 'test',
        createdAt: 1000,
        tags: [],
      },
      sampleEvents(60, (index) => `Message ${index} about zebra${index % 3}`),
    );
    const s = new SessionScript();
    for (const event of liveRun(s)) source.store.append(event);
    source.store.flush();
    const fork = source.store.createFork({
      parentId: s.sessionId,
      atMessage: 2,
      text: 'Crisps',
      fleet: demoFleet,
      changes: [],
    }).sessionId;
    const ids = [imported, s.sessionId, fork];
    const before = ids.map((id) => readingsOf(source, id));

    const temp = makeTempDir('fleetscope-migration-10-');
    cleanups.push(() => temp.remove());
    writeSchema9Store(join(temp.dir, STORE_FILE), source);

    const upgraded = openHistory(temp.dir, { recover: false, batchMs: 10_000 });
    cleanups.push(() => upgraded.close());
    expect(upgraded.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(upgraded.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(ids.map((id) => readingsOf(upgraded, id))).toEqual(before);
    expect(upgraded.store.listSessions({ search: 'zebra2' }).items.map((item) => item.id)).toEqual([
      imported,
    ]);
    // The old rows keep their names; the error index still holds the old error rows.
    const oldKinds = upgraded.db
      .prepare('SELECT count(*) AS n FROM event_log WHERE kind_code = kind')
      .get() as { n: number };
    const all = upgraded.db.prepare('SELECT count(*) AS n FROM event_log').get() as { n: number };
    expect(oldKinds.n).toBe(all.n);
    const errorIndex = () =>
      upgraded.db
        .prepare("SELECT count(*) AS n FROM event_log INDEXED BY event_log_errors WHERE kind = 'error'")
        .get() as { n: number };
    expect(errorIndex().n).toBe(2);

    // The old live session goes on: new rows are stored with codes and compact payloads, and
    // read back together with the old ones.
    const more = [
      s.event({ kind: 'session.continued', payload: { task: 'More', context: {} } }),
      ...liveRun(s).slice(1),
    ];
    for (const event of more) upgraded.store.append(event);
    upgraded.store.flush();
    expect([...upgraded.store.iterateEvents(s.sessionId)]).toEqual([...before[1]!.events, ...more]);
    expect([...upgraded.store.iterateEvents(fork)]).toEqual(before[2]!.events);
    expect(errorIndex().n).toBe(3);
    const stored = upgraded.db
      .prepare(
        `SELECT kind_code, kind, payload FROM event_log WHERE sid = (SELECT sid FROM sessions WHERE id = ?)
         AND seq > ? AND msg IS NULL ORDER BY seq`,
      )
      .all(s.sessionId, before[1]!.events.length) as Array<{
      kind_code: string;
      kind: string;
      payload: string;
    }>;
    expect(stored.every((row) => row.kind_code.length === 1)).toBe(true);
    expect(stored.filter((row) => row.kind === 'agent.status').map((row) => row.payload)).toEqual([
      'thinking',
      'waiting-for-human',
      'idle',
    ]);
    expect(stored.filter((row) => row.kind === 'tool.executed').map((row) => row.payload)).toEqual([
      '["c1","search","a \\"quoted\\"\\nresult ü",1]',
      '["c2","fetch","",0]',
    ]);
    expect(stored.find((row) => row.kind === 'session.status')?.payload).toBe('running');
  });

  it('a session interrupted by recovery gets its stop stored with a code and read back', () => {
    const temp = makeTempDir('fleetscope-migration-10-recovery-');
    cleanups.push(() => temp.remove());
    const first = openHistory(temp.dir, { recover: false, batchMs: 10_000 });
    const s = new SessionScript();
    for (const event of [
      s.started('Live', 'Plan'),
      s.messageStarted('m1', 'alice', 'bob'),
      s.delta('m1', 'half'),
    ])
      first.store.append(event);
    first.store.flush();
    // Closed without the owner's release: the next open with recovery finds it stale.
    first.db.prepare('DELETE FROM session_owners').run();
    first.close();
    const second = openHistory(temp.dir, { recover: true, batchMs: 10_000 });
    cleanups.push(() => second.close());
    const events = [...second.store.iterateEvents(s.sessionId)];
    expect(events.at(-1)?.kind).toBe('session.stopped');
    expect(second.store.getSession(s.sessionId)?.summary.status).toBe('interrupted');
    const last = second.db
      .prepare('SELECT kind_code, kind FROM event_log ORDER BY seq DESC LIMIT 1')
      .get() as { kind_code: string; kind: string };
    expect(last).toEqual({ kind_code: 'z', kind: 'session.stopped' });
  });
});
