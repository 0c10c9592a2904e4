import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetscopeApp } from '../../src-main/app';
import { STORE_FILE } from '../../src-main/history';
import { makeTempDir } from '../helpers/temp-dir';
import { createBenchApp, importRunnableSession } from './runnable-session';
import { BenchReport, benchReps, benchSize, fmt, interleave } from './harness';

/**
 * Forking a stored MESSAGES-message session at message AT (FLEETSCOPE_BENCH_FORK_MESSAGES,
 * default 100,000 at 90%), through the app's `branches.fork` (an edited message, not run): the
 * time it takes and the bytes it adds to the store file (WAL checkpointed before and after),
 * beside the same run's baseline: a fork made the plain way, copying the prefix's event and
 * message rows into a new session with INSERT ... SELECT in one transaction (no full-text index,
 * which would only make the baseline slower). Interleaved repetitions; printed and written as
 * JSON, never asserted on time. The goal: under a second, well under 1 MB added.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_FORK_MESSAGES', 100_000);
const AT = Math.max(2, Math.floor(MESSAGES * 0.9));
const REPS = benchReps();

const temp = makeTempDir('fleetscope-bench-fork-');
afterAll(() => temp.remove());

function storeBytes(app: FleetscopeApp): number {
  app.db.pragma('wal_checkpoint(TRUNCATE)');
  const file = join(temp.dir, 'data', STORE_FILE);
  return statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}

/** The baseline: a new session holding a copy of the prefix's rows. */
function copyPrefix(app: FleetscopeApp, parentId: string, forkSeq: number, id: string): void {
  app.db.transaction(() => {
    app.db
      .prepare(
        `INSERT INTO sessions (id, title, task, fleet_name, fleet_json, status, created_at, updated_at, tags, source, read_only)
         SELECT ?, title, task, fleet_name, fleet_json, 'stopped', created_at, updated_at, '[]', 'live', 0 FROM sessions WHERE id = ?`,
      )
      .run(id, parentId);
    app.db
      .prepare(
        `INSERT INTO event_log (sid, seq, t, kind_code, agent, msg, payload)
         SELECT (SELECT sid FROM sessions WHERE id = ?), seq, t, kind_code, agent, msg, payload FROM event_log
         WHERE sid = (SELECT sid FROM sessions WHERE id = ?) AND seq <= ?`,
      )
      .run(id, parentId, forkSeq);
    app.db
      .prepare(
        `INSERT INTO message_rows (sid, id, seq, t, thread_id, parent_id, sender, receiver, kind, content, meta,
           tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t, first_seq)
         SELECT (SELECT sid FROM sessions WHERE id = ?), id, seq, t, thread_id, parent_id, sender, receiver, kind,
           content, meta, tool_calls, tool_results, prompt_tokens, completion_tokens, state, dropped_reason, ended_t,
           first_seq FROM message_rows WHERE sid = (SELECT sid FROM sessions WHERE id = ?) AND seq <= ?`,
      )
      .run(id, parentId, forkSeq);
  })();
}

describe('fork', () => {
  it(`forks a stored ${MESSAGES}-message session at message ${AT}`, async () => {
    const app = createBenchApp(join(temp.dir, 'data'));
    const parentId = importRunnableSession(app, MESSAGES);
    const at = app.store.messageAt(parentId, AT);
    if (!at) throw new Error('no fork point');
    const bytes: Record<'fork' | 'copy', number[]> = { fork: [], copy: [] };
    let forks = 0;
    const steps = {
      fork: async () => {
        const before = storeBytes(app);
        const started = performance.now();
        const result = await app.call('branches.fork', {
          sessionId: parentId,
          atMessage: AT,
          text: `edited ${(forks += 1)}`,
          run: false,
        });
        const ms = performance.now() - started;
        bytes.fork.push(storeBytes(app) - before);
        // The fork holds the prefix (read through its parent) and its edited message.
        expect((await app.call('sessions.get', { id: result.sessionId })).summary.messageCount).toBe(AT);
        return ms;
      },
      copy: () => {
        const before = storeBytes(app);
        const started = performance.now();
        copyPrefix(app, parentId, at.seq - 1, `copy-${(forks += 1)}`);
        const ms = performance.now() - started;
        bytes.copy.push(storeBytes(app) - before);
        return ms;
      },
    };
    await steps.fork(); // warm-up: JIT, page cache
    bytes.fork.length = 0;
    const times = await interleave(REPS, steps);
    const report = new BenchReport('fork', `Fork of a stored ${MESSAGES}-message session at message ${AT}`, {
      messages: MESSAGES,
      atMessage: AT,
      reps: REPS,
      parentStoreBytes: storeBytes(app),
    });
    report.add({
      id: 'fork-time',
      label: `branches.fork at message ${AT} with an edit (by reference, not run)`,
      unit: 'ms',
      values: times.fork,
      baseline: { label: 'a fork copying the prefix rows (INSERT ... SELECT, no index)', values: times.copy },
      goal: { kind: 'value', max: 1000, text: 'under a second' },
    });
    report.add({
      id: 'fork-bytes',
      label: 'bytes the fork adds to the store (file + WAL after a checkpoint)',
      unit: 'bytes',
      values: bytes.fork,
      baseline: { label: 'bytes the copying fork adds', values: bytes.copy },
      goal: { kind: 'value', max: 1_000_000, text: 'well under 1 MB before its first new message' },
      note: `${fmt(Math.max(...bytes.fork) / 1024)} KB at most`,
    });
    report.finish();
    await app.close();
  });
});
