import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetscopeApp } from '../../src-main/app';
import {
  EventDecoder,
  SID_OF,
  STORED_EVENT_COLUMNS,
  type StoredEventRow,
} from '../../src-main/history/event-codec';
import { MESSAGE_ROW_COLUMNS, messageRows, storedEvents } from '../../src-main/history/raw-rows';
import { toStoredMessage, type MessageRow } from '../../src-main/history/rows';
import { makeTempDir } from '../helpers/temp-dir';
import { createBenchApp, importRunnableSession } from './runnable-session';
import { BenchReport, benchReps, benchSize, interleave, p95Of } from './harness';

/**
 * The store's part of a seek in a long session, in process (no renderer):
 *   - decoding the events a seek reads (those folded from the nearest checkpoint up to the seq,
 *     in the store's pages of 512, and the 200 the window reads after it), with the message rows
 *     they refer to read in one query per page, beside the same rows decoded with one lookup per
 *     referred row (the decoder's previous path), over the same seqs in the same run;
 *   - reading those event rows, and the page of 200 messages before each seq, as the store does
 *     (raw arrays made into rows) beside the driver's named rows;
 *   - `sessions.seek`, `sessions.messages` (200 before the seq) and `sessions.events` (200 after
 *     it) at MESSAGES messages beside the same calls on a 1,000-message session.
 * FLEETSCOPE_BENCH_MESSAGES sets the size (default 100,000). Interleaved repetitions, printed and
 * written as JSON; nothing is asserted on time.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_MESSAGES', 100_000);
const SMALL = 1_000;
const REPS = benchReps();
const SEEKS = 100;
const WINDOW_EVENTS = 200;
const PAGE_MESSAGES = 200;
const PAGE = 512;

const temp = makeTempDir('fleetscope-bench-seek-decode-');
afterAll(() => temp.remove());

const seekSeq = (events: number, index: number) => 1 + ((index * 7919) % (events - 1));

/** The stored rows a seek at `seq` decodes, as the store pages them. */
function seekBatches(app: FleetscopeApp, id: string, seq: number): StoredEventRow[][] {
  const checkpoint = app.db
    .prepare('SELECT max(seq) AS seq FROM checkpoints WHERE session_id = ? AND seq <= ?')
    .get(id, seq) as { seq: number | null };
  const range = app.db.prepare(
    `SELECT ${STORED_EVENT_COLUMNS} FROM event_log WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  );
  const batches: StoredEventRow[][] = [];
  const read = (after: number, upTo: number) => {
    for (let last = after; ;) {
      const rows = range.all(id, last, upTo, PAGE) as StoredEventRow[];
      if (rows.length > 0) batches.push(rows);
      if (rows.length < PAGE) return;
      last = rows[rows.length - 1]!.seq;
    }
  };
  read(checkpoint.seq ?? 0, seq);
  read(seq, seq + WINDOW_EVENTS);
  return batches;
}

describe('seek decoding', () => {
  it(`decodes the events of ${SEEKS} seeks in a ${MESSAGES}-message session`, async () => {
    const app = createBenchApp(join(temp.dir, 'data'));
    const big = importRunnableSession(app, MESSAGES);
    const small = importRunnableSession(app, SMALL);
    const bigEvents = app.store.lastEventSeq(big);
    const smallEvents = app.store.lastEventSeq(small);
    const decoder = new EventDecoder(app.db);
    const seeks = Array.from({ length: SEEKS }, (_, index) =>
      seekBatches(app, big, seekSeq(bigEvents, index)),
    );
    const rows = seeks.flat(2).length;
    const referred = seeks.flat().reduce((sum, batch) => sum + decoder.referredRows(batch).size, 0);
    // Both paths give the same events (checked once, outside the timing).
    for (const batches of seeks)
      for (const batch of batches)
        expect(decoder.decode(batch, big)).toEqual(decoder.decodeRowByRow(batch, big));

    const perSeek = (decode: (batch: StoredEventRow[]) => unknown) => () => {
      const started = performance.now();
      for (const batches of seeks) for (const batch of batches) decode(batch);
      return (performance.now() - started) / SEEKS;
    };
    const decoded = await interleave(REPS, {
      batched: perSeek((batch) => decoder.decode(batch, big)),
      rowByRow: perSeek((batch) => decoder.decodeRowByRow(batch, big)),
    });
    // The same event rows read as the store reads them (arrays made into rows in JS) and as
    // named rows built by the driver.
    const ranges = seeks.flatMap((batches) => batches.map((batch) => [batch[0]!.seq - 1, batch.at(-1)!.seq]));
    const eventRows = `SELECT ${STORED_EVENT_COLUMNS} FROM event_log WHERE sid = ${SID_OF} AND seq > ? AND seq <= ? ORDER BY seq`;
    const named = app.db.prepare(eventRows);
    const raw = app.db.prepare(eventRows).raw();
    for (const [after, upTo] of ranges.slice(0, 20))
      expect(storedEvents(raw.all(big, after, upTo))).toEqual(named.all(big, after, upTo));
    const readRows = (read: (after: number, upTo: number) => unknown) => () => {
      const started = performance.now();
      for (const [after, upTo] of ranges) read(after!, upTo!);
      return (performance.now() - started) / SEEKS;
    };
    // The page of 200 messages before each seq, read as the store reads it and as named rows.
    const pageSql = (columns: string) =>
      `SELECT ${columns} FROM messages WHERE session_id = ? AND seq > 0 AND seq <= ? ORDER BY seq DESC LIMIT ?`;
    const namedPage = app.db.prepare(pageSql('*'));
    const rawPage = app.db.prepare(pageSql(MESSAGE_ROW_COLUMNS)).raw();
    const pageOf = (read: (seq: number) => unknown) => () => {
      const started = performance.now();
      for (let index = 0; index < SEEKS; index += 1) read(seekSeq(bigEvents, index));
      return (performance.now() - started) / SEEKS;
    };
    const rowReads = await interleave(REPS, {
      raw: readRows((after, upTo) => storedEvents(raw.all(big, after, upTo))),
      named: readRows((after, upTo) => named.all(big, after, upTo)),
      rawPage: pageOf((seq) => messageRows(rawPage.all(big, seq, PAGE_MESSAGES + 1)).map(toStoredMessage)),
      namedPage: pageOf((seq) =>
        (namedPage.all(big, seq, PAGE_MESSAGES + 1) as MessageRow[]).map(toStoredMessage),
      ),
    });
    const calls = await interleave(REPS, {
      seekBig: () =>
        p95Of(SEEKS, (index) => app.call('sessions.seek', { id: big, seq: seekSeq(bigEvents, index) })),
      seekSmall: () =>
        p95Of(SEEKS, (index) => app.call('sessions.seek', { id: small, seq: seekSeq(smallEvents, index) })),
      pageBig: () =>
        p95Of(SEEKS, (index) =>
          app.call('sessions.messages', {
            id: big,
            before: { seq: seekSeq(bigEvents, index) + 1 },
            limit: PAGE_MESSAGES,
          }),
        ),
      pageSmall: () =>
        p95Of(SEEKS, (index) =>
          app.call('sessions.messages', {
            id: small,
            before: { seq: seekSeq(smallEvents, index) + 1 },
            limit: PAGE_MESSAGES,
          }),
        ),
      eventsBig: () =>
        p95Of(SEEKS, (index) =>
          app.call('sessions.events', { id: big, afterSeq: seekSeq(bigEvents, index), limit: WINDOW_EVENTS }),
        ),
      eventsSmall: () =>
        p95Of(SEEKS, (index) =>
          app.call('sessions.events', {
            id: small,
            afterSeq: seekSeq(smallEvents, index),
            limit: WINDOW_EVENTS,
          }),
        ),
    });
    await app.close();

    const report = new BenchReport('seek-decode', `Decoding a seek's events, a ${MESSAGES}-message session`, {
      messages: MESSAGES,
      events: bigEvents,
      seeks: SEEKS,
      rowsPerSeek: rows / SEEKS,
      referredRowsPerSeek: referred / SEEKS,
      reps: REPS,
    });
    report.add({
      id: 'decode-per-seek',
      label: `decode a seek's events (checkpoint to seq, then ${WINDOW_EVENTS}), referred rows in one query per page, mean of ${SEEKS} seeks`,
      unit: 'ms',
      values: decoded.batched,
      baseline: { label: 'same rows, one lookup per referred row', values: decoded.rowByRow },
      goal: { kind: 'ratio', max: 1, text: 'cheaper than a lookup per row (<= 1x)' },
    });
    report.add({
      id: 'event-rows-per-seek',
      label: `read a seek's event rows (arrays made into rows), mean of ${SEEKS} seeks`,
      unit: 'ms',
      values: rowReads.raw,
      baseline: { label: 'same rows built by the driver as named rows', values: rowReads.named },
      goal: { kind: 'ratio', max: 1, text: 'cheaper than named rows (<= 1x)' },
    });
    report.add({
      id: 'page-rows-per-seek',
      label: `read the page of ${PAGE_MESSAGES} messages before a seq (arrays made into rows), mean of ${SEEKS} seeks`,
      unit: 'ms',
      values: rowReads.rawPage,
      baseline: { label: 'same rows built by the driver as named rows', values: rowReads.namedPage },
      goal: { kind: 'ratio', max: 1, text: 'cheaper than named rows (<= 1x)' },
    });
    report.add({
      id: 'seek-page',
      label: `sessions.messages (${PAGE_MESSAGES} before a seq), ${MESSAGES}-message session, p95 of ${SEEKS}`,
      unit: 'ms',
      values: calls.pageBig,
      baseline: { label: `same, ${SMALL}-message session`, values: calls.pageSmall },
      goal: { kind: 'info', text: 'part of seek p95 < 50 ms to the painted frame' },
    });
    report.add({
      id: 'seek-view',
      label: `sessions.seek (the view at a seq), ${MESSAGES}-message session, p95 of ${SEEKS}`,
      unit: 'ms',
      values: calls.seekBig,
      baseline: { label: `same, ${SMALL}-message session`, values: calls.seekSmall },
      goal: { kind: 'info', text: 'part of seek p95 < 50 ms to the painted frame' },
    });
    report.add({
      id: 'seek-events',
      label: `sessions.events (${WINDOW_EVENTS} after a seq), ${MESSAGES}-message session, p95 of ${SEEKS}`,
      unit: 'ms',
      values: calls.eventsBig,
      baseline: { label: `same, ${SMALL}-message session`, values: calls.eventsSmall },
      goal: { kind: 'info', text: 'part of seek p95 < 50 ms to the painted frame' },
    });
    report.finish();
  });
});
