import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type FleetscopeApp } from '../../src-main/app';
import { exportSession } from '../../src-main/interop/export';
import { STORE_FILE } from '../../src-main/history';
import { GeneratedSession, sampleEvents } from '../main/interop/export/sample-session';
import { makeTempDir } from '../helpers/temp-dir';
import { ensureBuilt } from '../helpers/browser';
import { BenchReport, benchReps, benchSize, fmt, interleave, p95Of } from './harness';
import { rawInsert, readSessionRows, type TableRows } from './raw-inserts';
import { agentText } from './agent-text';
import { tableSizes } from './store-writes';

/**
 * The store with a large session, through the app (`createApp`, `app.importFile`, `app.call`),
 * each figure beside a baseline measured in the same run, over interleaved repetitions:
 *   - import of a MESSAGES-message export file (parsed on the import's parsing thread, written on
 *     its writing thread) vs raw inserts of the very same rows into the same schema (tables,
 *     indexes, FTS5 index) in one transaction;
 *   - the longest and p99 main-thread stall of a live run's commits (made at once, and left to
 *     the group commit) while that import is written vs the same live run alone;
 *   - the store's size vs the message text it holds;
 *   - opening (the first draw's calls: summary, the view at the end, the last page) and seeking
 *     (the view and the page at a random seq, the edges) in it vs the same in a 1,000-message
 *     session of the same store;
 *   - opening an empty session beside the big one vs in a store of its own;
 *   - a full-text query across the store vs the bare FTS5 match.
 * FLEETSCOPE_BENCH_MESSAGES sets the size (default 100,000; the issue's goals are for 1,000,000,
 * whose import takes about 30 s a run here).
 * The import runs in the built app in a child process (import-child.mjs); the rest in process.
 * Printed and written as JSON; never asserted on time.
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_MESSAGES', 100_000);
const SMALL = 1_000;
/** Messages of the agent-length store-size figure (each about 1,300 characters on average). */
const AGENT_TEXT_MESSAGES = Math.max(1_000, Math.round(MESSAGES / 10));
const REPS = benchReps();
/**
 * The whole bench's time limit: each repetition imports the file five times (once timed, four
 * beside a live run) and writes its rows raw, about 70 s per million messages each here.
 */
const TIME_LIMIT_MS = Math.max(600_000, (REPS * MESSAGES * 6 * 70_000) / 1_000_000 + 300_000);
const SEEKS = 100;
const OPENS = 20;
const PREVIEW_PAGE = 200;
const END = Number.MAX_SAFE_INTEGER;
const SEARCH = 'item 4242';

const temp = makeTempDir('fleetscope-bench-history-');
afterAll(() => temp.remove());
let folders = 0;
const freshFolder = () => join(temp.dir, `store-${(folders += 1)}`);

function openApp(dataDir: string): FleetscopeApp {
  return createApp({
    dataDir,
    surface: 'cli',
    env: {},
    seedSamples: false,
    pingIntervalMs: 0,
    watchStore: false,
  });
}

const storeBytes = (dataDir: string) =>
  ['', '-wal'].reduce((sum, suffix) => {
    try {
      return sum + statSync(join(dataDir, STORE_FILE + suffix)).size;
    } catch {
      return sum;
    }
  }, 0);

const IMPORT_CHILD = fileURLToPath(new URL('./import-child.mjs', import.meta.url));
const STALL_CHILD = fileURLToPath(new URL('./import-stall-child.mjs', import.meta.url));

interface LiveStall {
  ms: number;
  writes: number;
  longestCommitMs: number;
  p99CommitMs: number;
  longestLoopDelayMs: number;
  p99LoopDelayMs: number;
  longestDurableMs: number;
  p99DurableMs: number;
}

/** One frame at 60 Hz (ms): the longest a live commit may hold the main thread. */
const FRAME_MS = 16.7;

/**
 * A live run's writes on the main thread of the built app (import-stall-child.mjs), committed at
 * once (`flush`) or by the store's group commit (`group`), while it imports `target` or, with
 * `--alone ms`, for that long without an import.
 */
function liveStall(
  liveEvents: string,
  dataDir: string,
  mode: 'flush' | 'group',
  target: string[],
): LiveStall {
  const child = spawnSync(process.execPath, [STALL_CHILD, liveEvents, dataDir, mode, ...target], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`import-stall-child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as LiveStall;
}

/** `app.importFile` of the built app in a child process (import-child.mjs): its milliseconds. */
function importWithBuiltApp(
  file: string,
  dataDir: string,
): { ms: number; sessionId: string; messageCount: number } {
  const child = spawnSync(process.execPath, [IMPORT_CHILD, file, dataDir], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`import-child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as { ms: number; sessionId: string; messageCount: number };
}

/**
 * A store holding one session of `count` agent-length messages (agent-text.ts), written through
 * the app's store and closed: its bytes and the UTF-8 bytes of its message text.
 */
async function agentTextStore(count: number): Promise<{ bytes: number; text: number }> {
  const dataDir = freshFolder();
  const app = openApp(dataDir);
  const meta = {
    title: 'agent text',
    task: 'bench',
    fleetName: 'bench',
    source: 'bench',
    createdAt: 0,
    tags: [],
  };
  app.store.importSession(meta, sampleEvents(count, agentText));
  await app.close();
  const db = new Database(join(dataDir, STORE_FILE), { readonly: true });
  const text = (
    db.prepare('SELECT sum(length(CAST(content AS BLOB))) AS bytes FROM messages').get() as {
      bytes: number;
    }
  ).bytes;
  db.close();
  return { bytes: storeBytes(dataDir), text };
}

/** The calls the session view makes for its first draw (session/session-loading.ts). */
async function openSession(app: FleetscopeApp, id: string): Promise<void> {
  const summary = await app.call('sessions.get', { id });
  const [head, page] = await Promise.all([
    app.call('sessions.seek', { id, seq: END }),
    app.call('sessions.messages', { id, from: 'end', limit: PREVIEW_PAGE }),
  ]);
  expect(summary.summary.id === id && head.seq >= 0 && page.items.length >= 0).toBe(true);
}

/**
 * Events read right after a seek outside the window: the session view reads 100 (FIRST_EVENTS in
 * session/session-loading.ts); this reads 200, so the figure is an upper bound.
 */
const WINDOW_FIRST_EVENTS = 200;

/**
 * The calls a seek outside the renderer's window makes (session/session-loading.ts, seekWindow):
 * the view, the page and the edges at the seq, then the first events after it.
 */
async function seekSession(app: FleetscopeApp, id: string, seq: number): Promise<void> {
  const [view] = await Promise.all([
    app.call('sessions.seek', { id, seq }),
    app.call('sessions.messages', { id, before: { seq: seq + 1 }, limit: PREVIEW_PAGE }),
    app.call('sessions.edges', { id, seq }),
  ]);
  const window = await app.call('sessions.events', { id, afterSeq: seq, limit: WINDOW_FIRST_EVENTS });
  expect(view.seq).toBeLessThanOrEqual(seq);
  expect(window.events.length).toBeLessThanOrEqual(WINDOW_FIRST_EVENTS);
}

/** p95 of each of the seek's three calls alone, over `times` seqs (which one costs the time). */
async function seekParts(
  app: FleetscopeApp,
  id: string,
  events: number,
  times: number,
): Promise<{ seek: number; messages: number; edges: number }> {
  const seq = (index: number) => 1 + ((index * 7919) % (events - 1));
  return {
    seek: await p95Of(times, (index) => app.call('sessions.seek', { id, seq: seq(index) })),
    messages: await p95Of(times, (index) =>
      app.call('sessions.messages', { id, before: { seq: seq(index) + 1 }, limit: PREVIEW_PAGE }),
    ),
    edges: await p95Of(times, (index) => app.call('sessions.edges', { id, seq: seq(index) })),
  };
}

describe('history store with a large session', () => {
  it(
    `imports, measures, opens, seeks and searches a ${MESSAGES}-message session`,
    async () => {
      ensureBuilt();
      const file = join(temp.dir, 'session.json');
      const exported = await exportSession(new GeneratedSession(MESSAGES), 'generated-1', 'json', file);

      // The first repetition's store is read back (after its import was timed): its rows are what
      // the baseline inserts. No import of its own, so the goal's size runs in a few minutes.
      const readBacks: Array<{ rows: TableRows[]; textBytes: number }> = [];
      const readBaseline = (dataDir: string, sessionId: string) => {
        const readBack = new Database(join(dataDir, STORE_FILE), { readonly: true });
        const rows = readSessionRows(readBack, sessionId);
        const textBytes = (
          readBack
            .prepare('SELECT sum(length(CAST(content AS BLOB))) AS bytes FROM messages WHERE session_id = ?')
            .get(sessionId) as { bytes: number }
        ).bytes;
        readBack.close();
        return { rows, textBytes };
      };

      const sizes: number[] = [];
      const stores: string[] = [];
      // interleave() runs importFile first in the first repetition, so the rows exist before raw.
      const importing = await interleave(REPS, {
        importFile: () => {
          const dataDir = freshFolder();
          const result = importWithBuiltApp(file, dataDir);
          expect(result.messageCount).toBe(MESSAGES);
          sizes.push(storeBytes(dataDir));
          stores.push(dataDir);
          if (readBacks.length === 0) readBacks.push(readBaseline(dataDir, result.sessionId));
          return result.ms;
        },
        raw: () => rawInsert(freshFolder(), readBacks[0]!.rows),
      });
      const { rows, textBytes } = readBacks[0]!;
      const rowCount = rows.reduce((sum, table) => sum + table.rows.length, 0);

      // A live run commits every 16 ms on the main thread while the import is written on its
      // thread, and alone for as long as an import took.
      const liveEvents = join(temp.dir, 'live-events.json');
      writeFileSync(
        liveEvents,
        JSON.stringify([...sampleEvents(2_000)].filter((event) => event.kind !== 'session.stopped')),
      );
      // A run without an import lasts as long as the last run beside one took (before any, as long
      // as the median import).
      let aloneMs = [...importing.importFile].sort((a, b) => a - b)[Math.floor(REPS / 2)] ?? 1_000;
      const stallRuns = {
        flushDuring: [] as LiveStall[],
        flushAlone: [] as LiveStall[],
        groupDuring: [] as LiveStall[],
        groupAlone: [] as LiveStall[],
      };
      const besideImport = (mode: 'flush' | 'group', runs: LiveStall[]) => () => {
        const run = liveStall(liveEvents, freshFolder(), mode, [file]);
        aloneMs = run.ms;
        runs.push(run);
        return 0;
      };
      const withoutImport = (mode: 'flush' | 'group', runs: LiveStall[]) => () => {
        runs.push(liveStall(liveEvents, freshFolder(), mode, ['--alone', String(Math.round(aloneMs))]));
        return 0;
      };
      await interleave(REPS, {
        flushDuring: besideImport('flush', stallRuns.flushDuring),
        flushAlone: withoutImport('flush', stallRuns.flushAlone),
        groupDuring: besideImport('group', stallRuns.groupDuring),
        groupAlone: withoutImport('group', stallRuns.groupAlone),
      });
      const stallOf = (runs: LiveStall[], key: keyof LiveStall) => runs.map((run) => run[key]);

      // The big session's store gets a 1,000-message and an empty session beside it; another store
      // holds only an empty session.
      const bigDir = stores.at(-1)!;
      const app = openApp(bigDir);
      const big = (await app.call('sessions.list', { limit: 1 })).items[0]!.id;
      const meta = {
        title: 'small',
        task: 'bench',
        fleetName: 'bench',
        source: 'bench',
        createdAt: Date.now(),
        tags: [],
      };
      const small = app.store.importSession(meta, sampleEvents(SMALL));
      const empty = app.store.importSession({ ...meta, title: 'empty' }, sampleEvents(0));
      const aloneApp = openApp(freshFolder());
      const alone = aloneApp.store.importSession({ ...meta, title: 'empty' }, sampleEvents(0));
      const lastSeq = (id: string) => app.store.getSession(id)!.summary.messageCount;
      expect(lastSeq(big)).toBe(MESSAGES);

      const bigEvents = rows.find((table) => table.table === 'event_log')!.rows.length;
      const smallEvents = (await app.call('sessions.events', { id: small, afterSeq: 0, limit: 1 })).lastSeq;
      const seekSeq = (events: number, index: number) => 1 + ((index * 7919) % (events - 1));
      const ftsDb = new Database(join(bigDir, STORE_FILE), { readonly: true });
      const tables = tableSizes(ftsDb);
      const match = ftsDb.prepare('SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? LIMIT 50');
      const queries = await interleave(REPS, {
        openBig: () => p95Of(OPENS, () => openSession(app, big)),
        openSmall: () => p95Of(OPENS, () => openSession(app, small)),
        openEmpty: () => p95Of(OPENS, () => openSession(app, empty)),
        openAlone: () => p95Of(OPENS, () => openSession(aloneApp, alone)),
        seekBig: () => p95Of(SEEKS, (index) => seekSession(app, big, seekSeq(bigEvents, index))),
        seekSmall: () => p95Of(SEEKS, (index) => seekSession(app, small, seekSeq(smallEvents, index))),
        search: () =>
          p95Of(OPENS, async () =>
            expect((await app.call('sessions.list', { search: SEARCH })).total).toBe(1),
          ),
        searchRaw: () => p95Of(OPENS, async () => expect(match.all('"item 4242"').length).toBeGreaterThan(0)),
      });
      const parts = {
        big: [] as Awaited<ReturnType<typeof seekParts>>[],
        small: [] as Awaited<ReturnType<typeof seekParts>>[],
      };
      await interleave(REPS, {
        big: async () => (parts.big.push(await seekParts(app, big, bigEvents, SEEKS / 4)), 0),
        small: async () => (parts.small.push(await seekParts(app, small, smallEvents, SEEKS / 4)), 0),
      });
      ftsDb.close();
      await app.close();
      await aloneApp.close();

      const report = new BenchReport('history', `History store, a ${MESSAGES}-message session`, {
        messages: MESSAGES,
        events: bigEvents,
        rows: rowCount,
        exportFileBytes: exported.bytes,
        messageTextBytes: textBytes,
        reps: REPS,
        tables,
      });
      const sizeNote =
        MESSAGES < 1_000_000
          ? `measured at ${MESSAGES} messages; FLEETSCOPE_BENCH_MESSAGES=1000000 for the goal's size`
          : undefined;
      report.add({
        id: 'import-vs-raw',
        label: `import of a ${MESSAGES}-message export (built app, importFile)`,
        unit: 'ms',
        values: importing.importFile,
        baseline: { label: `raw inserts, same ${rowCount} rows + FTS, same schema`, values: importing.raw },
        goal: { kind: 'ratio', max: 1.5, text: '<= 1.5x raw inserts' },
        note: `${fmt(exported.bytes / 1e6)} MB file read and checked on the parsing thread while the writing thread writes its batches on a connection of its own (transactions of up to 200 ms that yield to live writes; the main thread only relays); ${sizeNote ?? ''}`,
      });
      const stallNote = `a live run appends 4 events every 16 ms on the main thread of the built app (import-stall-child.mjs) while a ${MESSAGES}-message import is written on its thread, against the same live run alone for as long, interleaved; ${sizeNote ?? `${MESSAGES} messages`}`;
      // Each figure's longest and p99, during the import against the same live run alone.
      const stallFigures = (
        id: string,
        keys: readonly [keyof LiveStall, keyof LiveStall],
        label: string,
        runs: { during: LiveStall[]; alone: LiveStall[] },
        note: string,
      ) => {
        for (const [suffix, key, what] of [
          ['', keys[0], 'longest'],
          ['-p99', keys[1], 'p99'],
        ] as const) {
          report.add({
            id: `${id}${suffix}`,
            label: `${what} ${label} while a ${MESSAGES}-message import is written`,
            unit: 'ms',
            values: stallOf(runs.during, key),
            baseline: { label: 'same live run, no import, for as long', values: stallOf(runs.alone, key) },
            goal: { kind: 'value', max: FRAME_MS, text: `< one frame (${FRAME_MS} ms)` },
            note: `${stallNote}; ${note}`,
          });
        }
      };
      const group = { during: stallRuns.groupDuring, alone: stallRuns.groupAlone };
      stallFigures(
        'import-live-commit',
        ['longestCommitMs', 'p99CommitMs'],
        "main-thread time of a live run's commit (the store's group commit, and the commits it makes as soon as the thread is out: a completed message, a status change, a run's end, a read of a live session that settles first)",
        group,
        "a commit that finds the writing thread in its transaction waits for it on the event loop (WriteTurns.whenThreadOut), so its time is its own transaction's",
      );
      stallFigures(
        'import-live-stall',
        ['longestCommitMs', 'p99CommitMs'],
        "main-thread stall of a synchronous flush (store.flush: a session's start, the CLI's and API's reads of a live session)",
        { during: stallRuns.flushDuring, alone: stallRuns.flushAlone },
        "each commit waits for the writing thread's row batch and the commit of its transaction (write-turns.ts)",
      );
      stallFigures(
        'import-live-loop-stall',
        ['longestLoopDelayMs', 'p99LoopDelayMs'],
        "main-thread stall (event-loop delay) of a live run left to the store's group commit",
        group,
        `a group commit that finds the thread in its transaction waits for it on the event loop (WriteTurns.whenThreadOut); the delay counts every stall of the main thread, the import's own relaying included; p99 from append to durable ${fmt(Math.max(...stallOf(stallRuns.groupDuring, 'p99DurableMs')))} ms at worst (alone ${fmt(Math.max(...stallOf(stallRuns.groupAlone, 'p99DurableMs')))} ms); ${stallRuns.groupDuring[0]?.writes ?? 0} writes during the first import`,
      );
      const agentStores: Array<{ bytes: number; text: number }> = [];
      for (let rep = 0; rep < REPS; rep++) agentStores.push(await agentTextStore(AGENT_TEXT_MESSAGES));
      const overhead = (bytes: number, text: number, messages: number) =>
        Math.round((bytes - text) / messages);
      // dbstat of the big session's store, which also holds the SMALL-message session.
      const perMessage = tables
        .map((table) => `${table.name} ${Math.round(table.bytes / (MESSAGES + SMALL))}`)
        .join(', ');
      report.add({
        id: 'store-size',
        label: `store size vs its message text, short messages (this bench's session, ~${Math.round(textBytes / MESSAGES)} bytes each)`,
        unit: 'MB',
        values: sizes.map((bytes) => bytes / 1e6),
        baseline: { label: 'message text (UTF-8)', values: sizes.map(() => textBytes / 1e6) },
        goal: { kind: 'ratio', max: 2, text: '<= ~2x raw text' },
        note: `store file after close (WAL checkpointed): events, messages, indexes, FTS5, checkpoints; ${overhead(sizes[0] ?? 0, textBytes, MESSAGES)} bytes per message besides its text; bytes per message by table and index (text included in message_rows): ${perMessage}`,
      });
      report.add({
        id: 'store-size-agent-text',
        label: `store size vs its message text, agent-length messages (${AGENT_TEXT_MESSAGES} of 200-4,000 characters, ~${Math.round((agentStores[0]?.text ?? 0) / AGENT_TEXT_MESSAGES)} bytes each)`,
        unit: 'MB',
        values: agentStores.map((store) => store.bytes / 1e6),
        baseline: { label: 'message text (UTF-8)', values: agentStores.map((store) => store.text / 1e6) },
        goal: { kind: 'ratio', max: 2, text: '<= ~2x raw text' },
        note: `the same session shape with longer texts (agent-text.ts), written through app.store; ${overhead(agentStores[0]?.bytes ?? 0, agentStores[0]?.text ?? 0, AGENT_TEXT_MESSAGES)} bytes per message besides its text`,
      });
      report.add({
        id: 'open-big',
        label: `open (first draw's calls), ${MESSAGES}-message session, p95 of ${OPENS}`,
        unit: 'ms',
        values: queries.openBig,
        baseline: { label: `same, ${SMALL}-message session`, values: queries.openSmall },
        goal: { kind: 'info', text: 'store part of < 300 ms to painted frame' },
      });
      report.add({
        id: 'open-empty-beside-big',
        label: `open an empty session beside the ${MESSAGES}-message one, p95 of ${OPENS}`,
        unit: 'ms',
        values: queries.openEmpty,
        baseline: { label: 'same, empty session in a store of its own', values: queries.openAlone },
        goal: { kind: 'ratio', max: 1.2, text: 'not slowed by a big one (<= 1.2x)' },
      });
      report.add({
        id: 'seek-big',
        label: `seek (view + page + edges at a seq, then ${WINDOW_FIRST_EVENTS} events), ${MESSAGES}-message session, p95 of ${SEEKS}`,
        unit: 'ms',
        values: queries.seekBig,
        baseline: { label: `same, ${SMALL}-message session`, values: queries.seekSmall },
        goal: { kind: 'value', max: 50, text: 'store part of p95 < 50 ms to painted frame' },
      });
      for (const call of ['seek', 'messages', 'edges'] as const) {
        report.add({
          id: `seek-part-${call}`,
          label: `  of which sessions.${call} alone, p95 of ${SEEKS / 4} (${MESSAGES} messages)`,
          unit: 'ms',
          values: parts.big.map((part) => part[call]),
          baseline: {
            label: `same, ${SMALL}-message session`,
            values: parts.small.map((part) => part[call]),
          },
          goal: { kind: 'info', text: 'where the seek time goes' },
        });
      }
      report.add({
        id: 'search',
        label: `full-text query across the store (sessions.list search), p95 of ${OPENS}`,
        unit: 'ms',
        values: queries.search,
        baseline: { label: 'bare FTS5 MATCH, LIMIT 50', values: queries.searchRaw },
        goal: { kind: 'value', max: 100, text: '< 100 ms' },
      });
      report.finish();
      console.log(
        `  store by table (${MESSAGES} + ${SMALL} messages): ${tables
          .map((table) => `${table.name} ${fmt(table.bytes / 1e6)} MB`)
          .join(', ')}`,
      );
    },
    TIME_LIMIT_MS,
  );
});
