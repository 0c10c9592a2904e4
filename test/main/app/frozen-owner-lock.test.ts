import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError, createApp } from '../../../src-main/app';
import { askOwner } from '../../../src-main/app/services/run-requests';
import { STORE_FILE } from '../../../src-main/history';
import { processStartOf } from '../../../src-main/history/ownership';
import { makeTempDir } from '../../helpers/temp-dir';

const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');

describe('a control sent to a run whose process froze inside a write transaction', () => {
  const temp = makeTempDir('fleetscope-frozen-owner-');
  afterAll(() => temp.remove());

  it('says the owner did not answer, and leaves no request behind', async () => {
    const dataDir = join(temp.dir, 'data');
    const app = createApp({ dataDir, surface: 'browser', seedSamples: false, pingIntervalMs: 0 });
    // Another living process holds the store's write lock and does not let go (as one stopped
    // with SIGSTOP mid-commit does); it is recorded as the owner of a running session.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(${JSON.stringify(betterSqlite)}))(process.argv[1]);
         db.exec('BEGIN IMMEDIATE');
         console.log('locked');
         setInterval(() => {}, 1000);`,
        join(dataDir, STORE_FILE),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const sessionId = 'frozen-owner';
      app.store.append({
        sessionId,
        seq: 1,
        t: 0,
        agent: null,
        kind: 'session.started',
        payload: {
          title: 'Frozen',
          task: 'Wait',
          fleetName: 'f',
          fleet: null,
          parentSessionId: null,
          forkSeq: null,
        },
      } as never);
      app.store.flush();
      app.store.db
        .prepare('UPDATE session_owners SET pid = ?, process_start = ? WHERE session_id = ?')
        .run(holder.pid, processStartOf(holder.pid!), sessionId);
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));

      const answer = await askOwner(app.store, sessionId, 'pause', null, 1_000).catch(
        (error: unknown) => error,
      );
      expect(answer).toBeInstanceOf(AppError);
      expect((answer as AppError).code).toBe('unavailable');
      expect((answer as AppError).message).toMatch(/is running but did not answer/);
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
      expect(app.store.runRequests.open()).toEqual([]);
    } finally {
      if (holder.exitCode === null) holder.kill('SIGKILL');
      await app.close();
    }
  }, 60_000);
});
