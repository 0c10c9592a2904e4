import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src-shared/domain';
import { INTERRUPTED_REASON, openHistory, STORE_FILE } from '../../../src-main/history';
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
