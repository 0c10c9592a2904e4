import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src-main/app';
import { EXPORT_FORMATS } from '../../src-main/interop/export';
import { STORE_FILE } from '../../src-main/history';
import { decodePayload, type ReferredRow, type StoredEventRow } from '../../src-main/history/event-codec';
import { sampleEvents } from '../main/interop/export/sample-session';
import { makeTempDir } from '../helpers/temp-dir';
import { BenchReport, benchReps, benchSize, fmt, interleave } from './harness';

/**
 * Export of a stored MESSAGES-message session to a real file in each format, through the app
 * (`app.exportTo`: read from the SQLite store, masked, rendered, written atomically), beside the
 * same run's baseline: the session's event rows read from the same store with a bare SELECT and
 * written to a file as they are stored (one JSON line each). Interleaved repetitions; printed
 * and written as JSON, never asserted on time. FLEETSCOPE_BENCH_EXPORT_MESSAGES sets the size.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_EXPORT_MESSAGES', 100_000);
const REPS = benchReps();

const temp = makeTempDir('fleetscope-bench-export-');
afterAll(() => temp.remove());
/** Columns of the message row an event names, renamed where they clash with the event's. */
interface JoinedColumns {
  message_kind: string;
  message_t: number;
}

let files = 0;
const freshFile = (extension: string) => join(temp.dir, `out-${(files += 1)}.${extension}`);

/**
 * The baseline: the stored event rows copied to a file, one line each, with a write stream; an
 * event stored without its message's text gets it back from the row it names (event-codec.ts).
 */
async function copyEventRows(
  db: Database.Database,
  sessionId: string,
): Promise<{ ms: number; bytes: number }> {
  const file = freshFile('jsonl');
  const started = performance.now();
  const out = createWriteStream(file);
  const rows = db
    .prepare(
      `SELECT e.seq, e.t, e.kind, e.agent, e.msg, e.payload, m.id, m.thread_id, m.parent_id, m.sender, m.receiver,
         m.kind AS message_kind, m.content, m.meta, m.tool_calls, m.tool_results, m.state, m.t AS message_t
       FROM event_log e LEFT JOIN message_rows m ON m.pk = e.msg
       WHERE e.sid = (SELECT sid FROM sessions WHERE id = ?) ORDER BY e.seq`,
    )
    .iterate(sessionId) as IterableIterator<StoredEventRow & Omit<ReferredRow, 'kind' | 't'> & JoinedColumns>;
  let pending: string[] = [];
  let size = 0;
  for (const row of rows) {
    const { seq, t, kind, agent } = row;
    const payload =
      row.msg === null
        ? row.payload
        : JSON.stringify(decodePayload(row, { ...row, kind: row.message_kind, t: row.message_t }));
    const line = `{"seq":${seq},"t":${t},"kind":${JSON.stringify(kind)},"agent":${JSON.stringify(agent)},"payload":${payload}}\n`;
    pending.push(line);
    size += line.length;
    if (size >= 64 * 1024) {
      if (!out.write(pending.join(''))) await once(out, 'drain');
      pending = [];
      size = 0;
    }
  }
  out.end(pending.join(''));
  await once(out, 'close');
  return { ms: performance.now() - started, bytes: statSync(file).size };
}

describe('export', () => {
  it(`exports a stored ${MESSAGES}-message session to a file in each format`, async () => {
    const app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'cli',
      env: {},
      seedSamples: false,
      pingIntervalMs: 0,
      watchStore: false,
    });
    const meta = {
      title: 'Bench',
      task: 'bench',
      fleetName: 'bench',
      source: 'bench',
      createdAt: Date.now(),
      tags: [],
    };
    const id = app.store.importSession(meta, sampleEvents(MESSAGES));
    const db = new Database(join(temp.dir, 'data', STORE_FILE), { readonly: true });
    const bytes: Record<string, number> = {};
    const steps: Record<string, () => Promise<number>> = {
      baseline: async () => {
        const copied = await copyEventRows(db, id);
        bytes.baseline = copied.bytes;
        return copied.ms;
      },
    };
    for (const format of EXPORT_FORMATS) {
      steps[format] = async () => {
        const file = freshFile(format);
        const started = performance.now();
        const result = await app.exportTo(id, format, file);
        const ms = performance.now() - started;
        expect(statSync(file).size).toBe(result.bytes);
        bytes[format] = result.bytes;
        return ms;
      };
    }
    // Warm-up: JIT, the page cache of the store file.
    for (const step of Object.values(steps)) await step();
    const times = await interleave(REPS, steps);
    db.close();
    await app.close();

    const report = new BenchReport('export', `Export of a stored ${MESSAGES}-message session to a file`, {
      messages: MESSAGES,
      bytes,
      reps: REPS,
    });
    for (const format of EXPORT_FORMATS) {
      const mb = bytes[format]! / 1e6;
      report.add({
        id: `export-${format}`,
        label: `app.exportTo ${format} (${fmt(mb)} MB)`,
        unit: 'ms',
        values: times[format]!,
        baseline: {
          label: `event rows copied to a file (${fmt(bytes.baseline! / 1e6)} MB)`,
          values: times.baseline!,
        },
        goal: { kind: 'info', text: 'no goal in the issue' },
        note: `${fmt(mb / (Math.min(...times[format]!) / 1000))} MB/s at best`,
      });
    }
    report.finish();
  });
});
