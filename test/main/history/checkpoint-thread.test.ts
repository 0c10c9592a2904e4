import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../../src-main/history';
import { CHECKPOINT_EVERY_MS } from '../../../src-main/history/checkpoint-thread';
import { importThreadStarted, threadTurnEnded, writeTurnsOf } from '../../../src-main/history/write-turns';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

/** A live run of `messages` messages of `chars` characters each, each committed at once. */
function* messages(script: SessionScript, from: number, count: number, chars: number) {
  for (let i = from; i < from + count; i++)
    yield* script.message(`m${i}`, 'alice', 'bob', [`${i} `.padEnd(chars, 'x')]);
}

describe("the store's checkpoints on a thread of their own", () => {
  it('take over once the store writes often: its commits make none, the WAL is still copied and rewound, and close removes it', async () => {
    const history = openTempHistory();
    const db = history.store.db;
    const autoCheckpoint = () => db.pragma('wal_autocheckpoint', { simple: true }) as number;
    const wal = join(history.dir, `${STORE_FILE}-wal`);
    const turns = writeTurnsOf(db);
    try {
      const script = new SessionScript();
      history.store.append(script.started());
      history.store.flush();
      // A few writes: SQLite's own checkpoints, in the commits.
      expect(autoCheckpoint()).toBe(1000);
      expect(turns.checkpointsOnThread()).toBe(false);

      // A live run: 16 bursts of 25 messages of 4 KB, each message committed at once, with a
      // pause after each as long as the thread's wait between looks: some 200 KB of WAL a commit
      // (rows, indexes, the full-text segment, the folded view's checkpoints), 80 MB in all.
      let next = 0;
      let largest = 0;
      for (let burst = 0; burst < 16; burst++) {
        for (const event of messages(script, next, 25, 4_000)) {
          history.store.append(event);
          history.store.flush();
        }
        next += 25;
        largest = Math.max(largest, statSync(wal).size);
        await sleep(CHECKPOINT_EVERY_MS * 1.5);
      }
      expect(turns.checkpointsOnThread()).toBe(true);
      expect(autoCheckpoint()).toBe(0);
      // No commit of the connection copied the WAL, yet it was copied and started over: it never
      // grew to hold the run, only a few bursts of it.
      expect(largest).toBeGreaterThan(1_000_000);
      expect(largest).toBeLessThan(25_000_000);
      expect(history.store.getSession(script.sessionId)?.summary.messageCount).toBe(next);

      // Close: the thread's connection closes first, so the store's is the last and removes the WAL.
      history.close();
      expect(existsSync(wal)).toBe(false);
      expect(turns.checkpointsOnThread()).toBe(false);
    } finally {
      history.cleanup();
    }
  }, 60_000);

  it('never start for a store written a few times', async () => {
    const history = openTempHistory();
    try {
      const script = new SessionScript();
      for (const event of [script.started(), ...messages(script, 0, 5, 100)]) {
        history.store.append(event);
        history.store.flush();
      }
      await sleep(100);
      expect(writeTurnsOf(history.store.db).checkpointsOnThread()).toBe(false);
      expect(history.store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      history.cleanup();
    }
  });

  it("stand aside while an import's writing thread has a job, and take over again after", async () => {
    const history = openTempHistory();
    const db = history.store.db;
    const wal = join(history.dir, `${STORE_FILE}-wal`);
    const turns = writeTurnsOf(db);
    const script = new SessionScript();
    let next = 0;
    /** `bursts` bursts of 10 messages of 4 KB, each committed at once, `pauseMs` after each. */
    const write = async (bursts: number, pauseMs: number) => {
      for (let burst = 0; burst < bursts; burst++) {
        for (const event of messages(script, next, 10, 4_000)) {
          history.store.append(event);
          history.store.flush();
        }
        next += 10;
        await sleep(pauseMs);
      }
    };
    try {
      history.store.append(script.started());
      history.store.flush();
      await write(4, 0);
      for (let waited = 0; !turns.checkpointsOnThread() && waited < 10_000; waited += 50) await sleep(50);
      expect(turns.checkpointsOnThread()).toBe(true);

      // An import's thread gets its job (it checkpoints what it writes itself, between its
      // transactions): nothing copies the live run's commits meanwhile, so the WAL is never
      // rewound and grows by all they wrote, some 170 KB a message (with the thread copying
      // them, it grew by less than a third of that).
      importThreadStarted(turns.shared);
      await write(2, CHECKPOINT_EVERY_MS * 2);
      const walBefore = statSync(wal).size;
      await write(30, 20);
      expect(statSync(wal).size - walBefore).toBeGreaterThan(30 * 10 * 100_000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

      // The job ends: the connection's next write asks the thread again, which copies it all,
      // and the write after that starts the WAL over from its beginning.
      threadTurnEnded(turns.shared);
      await write(1, CHECKPOINT_EVERY_MS * 4);
      await write(1, CHECKPOINT_EVERY_MS * 4);
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
      expect(result?.log).toBeLessThan(10 * 100);
      expect(result?.checkpointed).toBe(result?.log);
      expect(history.store.getSession(script.sessionId)?.summary.messageCount).toBe(next);
    } finally {
      history.cleanup();
    }
  }, 60_000);
});
