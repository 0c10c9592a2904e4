import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SID_OF } from '../../src-main/history/event-codec';
import { MESSAGE_ROW_COLUMNS, messageRows } from '../../src-main/history/raw-rows';
import { toStoredMessage } from '../../src-main/history/rows';
import { makeTempDir } from '../helpers/temp-dir';
import { BenchReport, benchReps, benchSize, interleave } from './harness';
import { createBenchApp, importRunnableSession } from './runnable-session';

/**
 * The context inspector (`sessions.context`) for the last turn of a MESSAGES-message session (the
 * sample run: three agents in a round, each reply with its provider's usage), beside reading the
 * same message rows the way the store reads them (arrays made into rows, then into messages), in
 * the same run: once the inspector has read the session (stepping through its turns), and the
 * first call on it. Each repetition is one call; the tokenizer is loaded by a call before timing
 * (loading it takes about a second, once per process). FLEETSCOPE_BENCH_MESSAGES sets the size.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_MESSAGES', 100_000);
const REPS = benchReps(7);

const temp = makeTempDir('fleetscope-bench-context-');
afterAll(() => temp.remove());

describe('context inspector', () => {
  it(`answers for the last turn of a ${MESSAGES}-message session`, async () => {
    const app = createBenchApp(join(temp.dir, 'data'));
    const id = importRunnableSession(app, MESSAGES);
    const last = app.store
      .pageMessages(id, { from: 'end', limit: 20 })
      .items.findLast((message) => message.from === 'planner');
    if (!last) throw new Error('The sample session has no planner message.');
    const small = importRunnableSession(app, 1_000);
    const smallLast = app.store
      .pageMessages(small, { from: 'end', limit: 20 })
      .items.findLast((message) => message.from === 'planner')!;
    const warm = await app.call('sessions.context', { id, messageId: last.id });
    expect(warm.groups.length).toBeGreaterThan(2);
    const rows = app.db.prepare(
      `SELECT ${MESSAGE_ROW_COLUMNS.replace('session_id', '? AS session_id')} FROM message_rows WHERE sid = ${SID_OF} AND seq < ? ORDER BY seq`,
    );
    const timed = (work: () => unknown) => async () => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const inspect = (session: string, messageId: string) =>
      app.call('sessions.context', { id: session, messageId });
    const measured = await interleave(REPS, {
      // The inspector keeps the last session it read: asking about another first makes it read anew.
      cold: async () => {
        await inspect(small, smallLast.id);
        return timed(() => inspect(id, last.id))();
      },
      warm: async () => {
        await inspect(id, last.id);
        return timed(() => inspect(id, last.id))();
      },
      readRows: timed(() => messageRows(rows.raw().all(id, id, last.seq)).map(toStoredMessage)),
    });
    await app.close();

    const parts = warm.omittedParts + warm.parts.length;
    const report = new BenchReport('context-inspector', `Context inspector, a ${MESSAGES}-message session`, {
      messages: MESSAGES,
      partsInContext: parts,
      estimatedTokens: warm.estimatedTokens,
      countedTokens: warm.countedTokens,
      reps: REPS,
    });
    report.add({
      id: 'context-last-turn',
      label: `sessions.context for the last turn (${parts} parts), ${MESSAGES} messages, session already read`,
      unit: 'ms',
      values: measured.warm,
      baseline: { label: "reading the session's message rows as the store does", values: measured.readRows },
      goal: { kind: 'value', max: 100, text: 'under 100 ms' },
    });
    report.add({
      id: 'context-last-turn-first',
      label: `sessions.context for the last turn, ${MESSAGES} messages, first call on the session`,
      unit: 'ms',
      values: measured.cold,
      baseline: { label: "reading the session's message rows as the store does", values: measured.readRows },
      goal: { kind: 'value', max: 100, text: 'under 100 ms' },
      note:
        'the tokenizer and its counts of the tool turns are warm (the warm-up call filled them), and ' +
        "the store connection's page cache (32 MiB) holds what the calls and the baseline read before; " +
        'the baseline reads every row before the turn whole, more than the inspector reads',
    });
    report.finish();
  });
});
