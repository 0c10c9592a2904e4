import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src-shared/domain';
import { INTERRUPTED_REASON, openHistory, STORE_FILE } from '../../../src-main/history';
import { FTS_AUTOMERGE, FtsMerging } from '../../../src-main/history/fts-merging';
import { writeTransaction } from '../../../src-main/history/write-turns';
import { sampleEvents } from '../interop/export/sample-session';
import { makeTempDir } from '../../helpers/temp-dir';
import { SessionScript } from '../../helpers/temp-store';

describe('history store: start-up recovery', () => {
  const temps: Array<{ remove(): void }> = [];
  afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));
  const tempDir = () => {
    const temp = makeTempDir();
    temps.push(temp);
    return temp.dir;
  };

  it('marks sessions left live as interrupted, keeping completed messages and the committed part of the last one', () => {
    const dir = tempDir();
    const first = openHistory(dir, { batchMs: 10_000 });
    const running = new SessionScript();
    const waiting = new SessionScript();
    const done = new SessionScript();
    for (const event of [running.started(), ...running.message('m1', 'user', 'alice', ['complete one'])])
      first.store.append(event);
    first.store.append(running.messageStarted('m2', 'alice', 'user'));
    first.store.append(running.delta('m2', 'committed '));
    first.store.flush();
    for (const event of [
      waiting.started(),
      waiting.event({ kind: 'session.status', payload: { status: 'waiting-for-human' } }),
    ])
      first.store.append(event);
    for (const event of [done.started(), done.stopped()]) first.store.append(event);
    first.store.append(running.delta('m2', 'never committed'));
    // The process dies: nothing more is flushed and the database is never closed properly. Its
    // sessions now name an owner pid that no longer runs (a child that has exited).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    first.db.prepare('UPDATE session_owners SET pid = ?, process_start = NULL').run(gone);

    const second = openHistory(dir);
    expect(second.recovery.sessions.sort()).toEqual([running.sessionId, waiting.sessionId].sort());
    expect(second.recovery.partialMessages).toBe(1);
    const summary = second.store.getSession(running.sessionId)?.summary;
    expect(summary).toMatchObject({ status: 'interrupted', stopReason: INTERRUPTED_REASON, messageCount: 1 });
    expect(summary?.endedAt).not.toBeNull();
    expect(second.store.getSession(waiting.sessionId)?.summary.status).toBe('interrupted');
    expect(second.store.getSession(done.sessionId)?.summary.status).toBe('completed');
    expect(second.store.pageMessages(running.sessionId).items.map((m) => [m.id, m.state, m.content])).toEqual(
      [
        ['m1', 'complete', 'complete one'],
        ['m2', 'partial', 'committed '],
      ],
    );
    // The event log ends the same way: a replay shows the interruption and the partial message.
    const replay = foldEvents(second.store.iterateEvents(running.sessionId));
    expect(replay.status).toBe('interrupted');
    expect(replay.messages.m2).toMatchObject({ state: 'partial', content: 'committed ' });
    expect(second.store.listSessions({ status: ['running', 'paused', 'waiting-for-human'] }).total).toBe(0);
    second.close();
    first.db.close();
  });

  it('leaves live sessions alone while the process driving them lives, even with recovery on', () => {
    const dir = tempDir();
    const app = openHistory(dir);
    const s = new SessionScript();
    app.store.append(s.started());
    const other = openHistory(dir);
    expect(other.recovery.sessions).toEqual([]);
    expect(other.store.getSession(s.sessionId)?.summary.status).toBe('running');
    other.close();
    app.close();
  });

  it("turns the full-text index's merging back on once no import is being written (an import's thread that died with its process left it off)", () => {
    const dir = tempDir();
    const first = openHistory(dir, { batchMs: 10_000 });
    const automerge = (db: typeof first.db) =>
      db.prepare("SELECT v FROM messages_fts_config WHERE k = 'automerge'").pluck().get();
    // An import being written, and its thread's setting (thread-write-job.ts), as a process
    // killed in the middle of a big import leaves them.
    const importing = first.store.beginImport({
      title: 'big import',
      task: '',
      fleetName: 'imported',
      source: 'test',
      createdAt: 0,
      tags: [],
    });
    importing.append([...sampleEvents(20)].filter((event) => !event.kind.startsWith('session.')));
    writeTransaction(first.db, () => new FtsMerging(first.db).pause());
    expect(automerge(first.db)).toBe(0);

    // Its process still writes it: the setting is left to its thread.
    const beside = openHistory(dir);
    expect(beside.recovery.sessions).toEqual([]);
    expect(automerge(beside.db)).toBe(0);
    beside.close();

    // Its process is gone: the import is interrupted, and commits merge again.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    first.db.prepare('UPDATE session_owners SET pid = ?, process_start = NULL').run(gone);
    const second = openHistory(dir);
    expect(second.recovery.sessions).toEqual([importing.sessionId]);
    expect(automerge(second.db)).toBe(FTS_AUTOMERGE);
    expect(new FtsMerging(second.db).automatic()).toBe(true);
    // A store whose setting was never touched is left as it is (FTS5's default, no row).
    const untouched = openHistory(tempDir());
    expect(automerge(untouched.db)).toBeUndefined();
    untouched.close();
    second.close();
    first.db.close();
  });

  it('judges an owner on another host by its heartbeat', () => {
    const dir = tempDir();
    const app = openHistory(dir);
    const fresh = new SessionScript();
    const stale = new SessionScript();
    app.store.append(fresh.started());
    app.store.append(stale.started());
    const setOwner = app.db.prepare(
      "UPDATE session_owners SET host = 'elsewhere', pid = 1, heartbeat_at = ? WHERE session_id = ?",
    );
    setOwner.run(Date.now(), fresh.sessionId);
    setOwner.run(Date.now() - 10 * 60_000, stale.sessionId);
    const other = openHistory(dir);
    expect(other.recovery.sessions).toEqual([stale.sessionId]);
    expect(other.store.getSession(fresh.sessionId)?.summary.status).toBe('running');
    other.close();
    app.close();
  });

  it('moves a corrupt store aside, opens a fresh one and says where the old file went', () => {
    const dir = tempDir();
    writeFileSync(join(dir, STORE_FILE), Buffer.alloc(8192, 7));
    const opened = openHistory(dir);
    expect(opened.movedAsideTo).toMatch(/fleetscope\.db\.corrupt-/);
    expect(opened.store.listSessions().total).toBe(0);
    opened.close();
  });

  it('never moves a healthy store aside when the native binding fails to load', () => {
    const dir = tempDir();
    const first = openHistory(dir);
    const s = new SessionScript();
    first.store.append(s.started());
    first.close();
    expect(() => openHistory(dir, { nativeBinding: join(dir, 'missing.node') })).toThrow();
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
    const again = openHistory(dir, { recover: false });
    expect(again.store.getSession(s.sessionId)).not.toBeNull();
    again.close();
  });
});
