import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import type { RunEvent } from '@shared/domain';
import type { ImportedEvent, ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import type { HistoryStore } from '../../../../src-main/history';
import { ROWS_PER_STATEMENT } from '../../../../src-main/history/row-batch';
import { FTS_AUTOMERGE, FtsMerging } from '../../../../src-main/history/fts-merging';
import { writeTurnsOf, type WriteTurns } from '../../../../src-main/history/write-turns';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';
import { demoFleet, openTempHistory } from '../../../helpers/temp-store';
import { GeneratedSession, sampleEvents } from '../export/sample-session';

const FIXTURES = join(__dirname, '../../../fixtures/real');
const temp = makeTempDir('fleetscope-import-thread-');
/** Small files too go to the writing thread here (by default only files from 1 MiB do). */
const ON_THREAD = { writeThreadFrom: 0 };
afterAll(() => temp.remove());

/**
 * The store as an import on the main thread sees it: its batches have no writing thread, so
 * importFile writes them through `append` and `finish` on the store's own connection.
 */
function mainThreadOnly(store: SessionWriter): SessionWriter {
  return {
    importSession: (meta, events) => store.importSession(meta, events),
    beginImport: (meta): ImportInProgress => {
      const inner = store.beginImport(meta);
      return {
        sessionId: inner.sessionId,
        append: (events) => inner.append(events),
        finish: () => inner.finish(),
        abort: () => inner.abort(),
      };
    },
  };
}

/** The tables a session's rows live in, and how each names the session. */
const TABLES = [
  // stored_at is when the session entered the store: each import writes its own.
  { table: 'sessions', key: 'id = ?', skip: ['id', 'stored_at'] },
  { table: 'event_log', key: 'sid = (SELECT sid FROM sessions WHERE id = ?)', skip: [] },
  { table: 'message_rows', key: 'sid = (SELECT sid FROM sessions WHERE id = ?)', skip: [] },
  { table: 'checkpoints', key: 'session_id = ?', skip: ['session_id'] },
];

/**
 * Every stored row of the import's sessions (their random ids left out), the full-text index's
 * per-row token counts, the matches of a few words, the events as decoded, and the owner rows.
 */
function stored(store: HistoryStore, sessionIds: string[]) {
  const db = store.db;
  const tables = sessionIds.map((id) =>
    TABLES.map(({ table, key, skip }) => {
      const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>)
        .map((column) => column.name)
        .filter((name) => !skip.includes(name));
      return db.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${key} ORDER BY 1, 2`).all(id);
    }),
  );
  // Each row's token counts (`origin` says which index segment holds it, which depends on where
  // transactions ended, not on what is indexed).
  const fts = db.prepare('SELECT id, sz FROM messages_fts_docsize ORDER BY id').all();
  const matches = ['the', 'tool', 'patch', 'weather', 'error'].map((word) =>
    db.prepare('SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid').all(word),
  );
  const events = sessionIds.map((id) =>
    [...store.iterateEvents(id)].map((event) => ({ ...event, sessionId: '' })),
  );
  const owners = db.prepare('SELECT count(*) AS n FROM session_owners').get();
  return { tables, fts, matches, events, owners };
}

/** Imports `file` into a fresh store twice, on the writing thread and on the main thread. */
async function bothWays(file: string, checkpointInterval = 500) {
  const results = [];
  for (const onThread of [true, false]) {
    const history = openTempHistory({ checkpointInterval });
    try {
      const writer: SessionWriter = onThread ? history.store : mainThreadOnly(history.store);
      const result = await importFile(file, writer, ON_THREAD);
      results.push({ result, stored: stored(history.store, result.sessionIds) });
    } finally {
      history.cleanup();
    }
  }
  const [thread, main] = results as [(typeof results)[0], (typeof results)[0]];
  return { thread, main };
}

/** A log the bulk path cannot take whole: deltas, envelopes that change, completions twice, cut-off replies. */
function* irregularEvents(): Generator<ImportedEvent> {
  const start = (
    t: number,
    id: string,
    from = 'planner',
    kind: 'text' | 'function' = 'text',
  ): ImportedEvent => ({
    t,
    agent: from,
    kind: 'message.started',
    payload: { messageId: id, threadId: 'th', parentId: null, from, to: 'coder', kind },
  });
  const done = (t: number, id: string, content: string, from = 'planner'): ImportedEvent => ({
    t,
    agent: from,
    kind: 'message.completed',
    payload: {
      message: {
        id,
        threadId: 'th',
        parentId: null,
        from,
        to: 'coder',
        kind: 'text',
        content,
        t,
        meta: {},
        state: 'complete',
        usage: { prompt: 3, completion: 4 },
      },
    },
  });
  const delta = (t: number, id: string, text: string): ImportedEvent => ({
    t,
    agent: 'planner',
    kind: 'message.delta',
    payload: { messageId: id, text },
  });
  yield* [...sampleEvents(3)].slice(0, 1);
  yield start(1, 'a');
  yield delta(2, 'a', 'the pa');
  yield delta(3, 'a', 'tch');
  yield done(4, 'a', 'the patch');
  // Completed with text that does not go on from what streamed.
  yield start(5, 'b');
  yield delta(6, 'b', 'draft');
  yield done(7, 'b', 'the final weather');
  // A start and completion whose envelopes differ (sender), then a second completion.
  yield start(8, 'c');
  yield done(9, 'c', 'tool output', 'coder');
  yield done(10, 'c', 'tool output, again');
  // A start completed later, with something between.
  yield start(11, 'd', 'planner', 'function');
  yield {
    t: 12,
    agent: null,
    kind: 'usage',
    payload: { messageId: 'd', usage: { prompt: 1, completion: 2 } },
  };
  yield done(13, 'd', 'an error, then the patch');
  // A start again of a completed message, and a pair for an id that has a row.
  yield start(14, 'a');
  yield done(15, 'a', 'the patch, rewritten');
  // Cut off: never completed.
  yield start(16, 'e');
  yield delta(17, 'e', 'the weather is');
}

const fixtureFiles = readdirSync(FIXTURES).filter((name) => name !== 'PROVENANCE.md' && name !== 'invalid');

describe('an import written on its own thread (in bulk) stores what the main thread writes event by event', () => {
  const exports: Record<string, string> = {};
  beforeAll(async () => {
    const source = new MemorySessions();
    const sample = source.addSession({ title: 'Sample' }, [...sampleEvents(1_200)]);
    const irregular = source.addSession({ title: 'Irregular' }, [...irregularEvents()]);
    exports.sample = join(temp.dir, 'sample.json');
    exports.irregular = join(temp.dir, 'irregular.json');
    exports.generated = join(temp.dir, 'generated.json');
    await exportSession(source, sample, 'json', exports.sample);
    await exportSession(source, irregular, 'json', exports.irregular);
    await exportSession(new GeneratedSession(3_000), 'generated-1', 'json', exports.generated);
  });

  it.each(fixtureFiles)('%s: the same rows, events and full-text entries', async (name) => {
    const { thread, main } = await bothWays(join(FIXTURES, name));
    expect(thread.result.messageCount).toBe(main.result.messageCount);
    expect(thread.stored.tables.flat(2).length).toBeGreaterThan(0);
    expect(thread.stored).toEqual(main.stored);
  });

  it.each(['sample', 'generated', 'irregular'])(
    'a generated export (%s): the same rows, events and full-text entries, checkpoints included',
    async (name) => {
      const { thread, main } = await bothWays(exports[name] as string, 97);
      expect(thread.stored.tables[0]?.[1]?.length).toBeGreaterThan(10);
      if (name !== 'irregular') expect(thread.stored.tables[0]?.[3]?.length).toBeGreaterThan(5);
      expect(thread.stored).toEqual(main.stored);
      expect(thread.stored.owners).toEqual({ n: 0 });
    },
  );

  it('writes irregular logs (deltas, changed envelopes, completions twice, cut-off replies) as they read', async () => {
    const { thread } = await bothWays(exports.irregular as string);
    const messages = thread.stored.tables[0]?.[2] as Array<Record<string, unknown>>;
    const byId = new Map(messages.map((row) => [row.id, row]));
    expect(byId.get('a')).toMatchObject({ content: 'the patch, rewritten', state: 'complete' });
    expect(byId.get('b')).toMatchObject({ content: 'the final weather', state: 'complete' });
    expect(byId.get('c')).toMatchObject({ content: 'tool output, again', sender: 'planner' });
    expect(byId.get('d')).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, kind: 'text' });
    expect(byId.get('e')).toMatchObject({ content: 'the weather is', state: 'partial' });
    const events = thread.stored.events[0] ?? [];
    const deltas = events.filter((event) => event.kind === 'message.delta');
    expect(deltas.map((event) => (event.payload as { text: string }).text)).toEqual([
      'the pa',
      'tch',
      'draft',
      'the weather is',
    ]);
  });
});

describe('which thread writes an import', () => {
  /** The store, counting the batches written on this thread through `append`. */
  function counting(store: SessionWriter) {
    const counts = { appended: 0 };
    const writer: SessionWriter = {
      importSession: (meta, events) => store.importSession(meta, events),
      beginImport: (meta): ImportInProgress => {
        const inner = store.beginImport(meta);
        return {
          ...inner,
          append: (events) => {
            counts.appended += 1;
            inner.append(events);
          },
        };
      },
    };
    return { writer, counts };
  }

  it('writes a small file on this thread and a file from the threshold on its writing thread', async () => {
    const file = join(FIXTURES, fixtureFiles[0] as string);
    for (const [options, onThisThread] of [
      [{}, true],
      [ON_THREAD, false],
    ] as const) {
      const history = openTempHistory();
      try {
        const { writer, counts } = counting(history.store);
        const result = await importFile(file, writer, options);
        expect(result.messageCount).toBeGreaterThan(0);
        expect(counts.appended > 0).toBe(onThisThread);
        expect(history.store.getSession(result.sessionId)?.summary.status).toBe('completed');
      } finally {
        history.cleanup();
      }
    }
  });

  it("prices usage by the store's price overrides on either thread", async () => {
    const file = join(temp.dir, 'priced.json');
    const messages = [
      { role: 'user', content: 'Hello' },
      {
        role: 'assistant',
        content: 'Hi.',
        model: 'my-model',
        usage: { prompt_tokens: 500, completion_tokens: 10 },
      },
    ];
    writeFileSync(file, JSON.stringify(messages));
    for (const options of [{}, ON_THREAD]) {
      const history = openTempHistory();
      try {
        history.store.setPriceOverrides([
          { provider: 'openai', model: 'my-model', inputPerMTok: 1000, outputPerMTok: 0 },
        ]);
        const result = await importFile(file, history.store, options);
        const reply = history.store.pageMessages(result.sessionId, { limit: 10 }).items.at(-1);
        expect(reply?.usage).toMatchObject({ prompt: 500, model: 'my-model', cost: 0.5 });
      } finally {
        history.cleanup();
      }
    }
  });
});

/**
 * Imports a generated 4,000-message export on the writing thread while `write` runs every
 * `everyMs` on this thread; returns the import's result, what `write` threw, and how many times
 * it ran while the import was being written.
 */
async function whileImporting(
  store: HistoryStore,
  name: string,
  write: () => void,
  everyMs: number,
  onProgress?: (done: number, total: number) => void,
) {
  const file = join(temp.dir, `${name}.json`);
  await exportSession(new GeneratedSession(4_000), 'generated-1', 'json', file);
  let duringImport = 0;
  let importing = true;
  const failures: unknown[] = [];
  const timer = setInterval(() => {
    try {
      write();
      if (importing) duringImport += 1;
    } catch (error) {
      failures.push(error);
    }
  }, everyMs);
  try {
    const result = await importFile(file, store, { ...ON_THREAD, onProgress }).finally(() => {
      importing = false;
    });
    expect(store.getSession(result.sessionId)?.summary).toMatchObject({
      status: 'completed',
      messageCount: 4_000,
    });
    return { result, failures, duringImport, stop: () => clearInterval(timer) };
  } catch (error) {
    clearInterval(timer);
    throw error;
  }
}

/**
 * A live run's log (a sample session, not stopped) appended to `store` a few events at a time,
 * each time committed at once; `written()` says how many so far.
 */
function liveRun(store: HistoryStore, sessionId: string) {
  const live = [...sampleEvents(400)].filter((event) => event.kind !== 'session.stopped');
  let next = 0;
  return {
    total: live.length,
    written: () => next,
    /** Appends and commits the next `count` events (or what is left). */
    write(count = 3): void {
      for (let i = 0; i < count && next < live.length; i++, next++)
        store.append({ ...(live[next] as ImportedEvent), sessionId, seq: next + 1 } as never);
      store.flush();
    },
  };
}

describe('an import on its own thread beside a live run', () => {
  it('lets the live run commit throughout, and both logs are whole', async () => {
    const history = openTempHistory();
    try {
      const sessionId = 'live-beside-import';
      const live = liveRun(history.store, sessionId);
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'beside-live',
        () => live.write(),
        2,
      );
      while (live.written() < live.total && failures.length === 0)
        await new Promise((resolve) => setTimeout(resolve, 5));
      stop();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      expect(history.store.countEvents(sessionId)).toBe(live.total);
      expect(history.store.getSession(sessionId)?.summary.status).toBe('running');
    } finally {
      history.cleanup();
    }
  });
});

/**
 * A live run that never ends: its log (a sample session, not stopped) and then its messages again
 * under new ids; `next(count)` gives the next events, numbered for `sessionId`.
 */
function endlessRun(sessionId: string) {
  const log = [...sampleEvents(400)].filter((event) => event.kind !== 'session.stopped');
  let at = 0;
  let seq = 0;
  return {
    seq: () => seq,
    next(count: number): RunEvent[] {
      const out: RunEvent[] = [];
      while (out.length < count) {
        const round = Math.floor(at / log.length);
        const event = log[at % log.length] as ImportedEvent;
        at += 1;
        if (round > 0 && event.kind.startsWith('session.')) continue;
        const again =
          round === 0
            ? event
            : (JSON.parse(JSON.stringify(event).replaceAll('"msg-', `"r${round}-msg-`)) as ImportedEvent);
        out.push({ ...again, sessionId, seq: (seq += 1) } as RunEvent);
      }
      return out;
    },
    /** A change of the run's status, as the next event. */
    status(status: 'paused' | 'running'): RunEvent {
      return { sessionId, seq: (seq += 1), t: 0, agent: null, kind: 'session.status', payload: { status } };
    },
  };
}

describe("the main thread's turn beside an import on its own thread", () => {
  it('a write that finds the thread in its transaction waits for at most one row batch of its events', async () => {
    const history = openTempHistory({ heartbeatMs: 0 });
    try {
      const turns = writeTurnsOf(history.store.db);
      const sessionId = history.store.importSession(
        { title: 'renamed', task: '', fleetName: '', source: 'test', createdAt: 0, tags: [] },
        sampleEvents(1),
      );
      // Events the thread wrote between each waiting write's ask and its turn.
      const waits: number[] = [];
      let renames = 0;
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'main-waits',
        () => {
          turns.lastWait = null;
          history.store.renameSession(sessionId, `renamed ${(renames += 1)}`);
          if (turns.lastWait) waits.push((turns.lastWait as { threadEvents: number }).threadEvents);
        },
        2,
      );
      stop();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      expect(waits.length).toBeGreaterThan(0);
      // At most the row batch it was writing (one event more keeps a started message with its
      // completion): it looks at the main thread's wish before each.
      expect(Math.max(...waits)).toBeLessThanOrEqual(ROWS_PER_STATEMENT + 1);
    } finally {
      history.cleanup();
    }
  }, 60_000);

  it("a live run's group commits never block on the thread: they wait on the event loop, and every event is stored in order", async () => {
    const history = openTempHistory({ heartbeatMs: 0 });
    try {
      const turns = writeTurnsOf(history.store.db);
      const sessionId = 'live-group-commits';
      const run = endlessRun(sessionId);
      let durable = 0;
      // Appended a few at a time and left to the store's group commit (its timer), as a run does.
      const append = () => {
        for (const event of run.next(3)) history.store.append(event);
        const appended = run.seq();
        history.store.whenDurable(() => (durable = Math.max(durable, appended)));
      };
      turns.lastWait = null;
      const { failures, duringImport, stop } = await whileImporting(history.store, 'live-group', append, 2);
      stop();
      await expect.poll(() => durable).toBe(run.seq());
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      // Some commits found the thread in its transaction, and none of them waited for it here: a
      // commit made at once (a completed message, with the thread out) may meet the thread only
      // while it backs off from a turn it was about to take (it set its flag, then saw ours), and
      // then waits for no row of it.
      expect(turns.waitedOnLoop).toBeGreaterThan(0);
      // (Read through its declared type: the assignment above narrowed it to null.)
      const lastWait = turns.lastWait as WriteTurns['lastWait'];
      expect(lastWait?.threadEvents ?? 0).toBe(0);
      expect([...history.store.iterateEvents(sessionId)].map((event) => event.seq)).toEqual(
        Array.from({ length: run.seq() }, (_, index) => index + 1),
      );
    } finally {
      history.cleanup();
    }
  }, 60_000);
});

/**
 * Whether the last turn of this thread waited while the writing thread wrote rows. A turn may
 * meet the thread only as it backs off from a turn it was about to take (it set its flag, then
 * saw this thread's): that wait is for no row of it, and is not a block.
 */
const waitedForRows = (turns: WriteTurns) =>
  ((turns.lastWait as WriteTurns['lastWait'])?.threadEvents ?? 0) > 0;

describe('a read of a live session beside an import on its own thread', () => {
  it('settles first: it never blocks on the thread (nor do status changes), and reads every event appended before it', async () => {
    const history = openTempHistory({ heartbeatMs: 0 });
    try {
      const turns = writeTurnsOf(history.store.db);
      const sessionId = 'live-read';
      const run = endlessRun(sessionId);
      const reads: Array<Promise<{ appended: number; stored: number; blocked: boolean }>> = [];
      // As the app's handlers read a live session: settle, then read (which flushes what is
      // still buffered, here nothing).
      let calls = 0;
      let appendsBlocked = 0;
      const appendAndRead = () => {
        turns.lastWait = null;
        for (const event of run.next(3)) history.store.append(event);
        // A status change commits at once, or, while the thread is in, as soon as it is out.
        calls += 1;
        if (calls % 4 === 0) history.store.append(run.status(calls % 8 === 0 ? 'running' : 'paused'));
        if (waitedForRows(turns)) appendsBlocked += 1;
        const appended = run.seq();
        reads.push(
          history.store.settle().then(() => {
            turns.lastWait = null;
            const usage = history.store.usage(sessionId);
            expect(usage).toBeDefined();
            return {
              appended,
              stored: history.store.lastEventSeq(sessionId),
              blocked: waitedForRows(turns),
            };
          }),
        );
      };
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'live-read',
        appendAndRead,
        2,
      );
      stop();
      const done = await Promise.all(reads);
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      expect(turns.waitedOnLoop).toBeGreaterThan(0);
      expect(calls).toBeGreaterThan(8);
      expect(appendsBlocked).toBe(0);
      expect(done.filter((read) => read.blocked)).toEqual([]);
      expect(done.filter((read) => read.stored < read.appended)).toEqual([]);
    } finally {
      history.cleanup();
    }
  }, 60_000);
});

describe('checkpoints while an import writes on its own thread', () => {
  it('leaves them to the thread (the live commits make none), then gives them back to the store', async () => {
    const history = openTempHistory();
    try {
      const db = history.store.db;
      const autoCheckpoint = () => db.pragma('wal_autocheckpoint', { simple: true }) as number;
      const walFrames = () => (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]?.log ?? 0;
      const live = liveRun(history.store, 'live-beside-checkpoints');
      const seen: number[] = [];
      const liveWrite = () => {
        live.write();
        seen.push(autoCheckpoint());
      };
      // Live commits every 2 ms, and a rename at each batch the thread reports written: those come
      // while the thread has its job however slowly the timer runs on a loaded machine.
      let whileWriting = 0;
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'checkpoints',
        liveWrite,
        2,
        (done, total) => {
          if (done <= total / 2 || done >= total) return;
          // A write of its own (the live log may be all written by then on a slow machine).
          whileWriting++;
          history.store.renameSession('live-beside-checkpoints', `Live, batch ${whileWriting}`);
          seen.push(autoCheckpoint());
        },
      );
      stop();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      expect(whileWriting).toBeGreaterThan(0);
      // Automatic checkpoints were off for one stretch of commits (the thread's job, which begins
      // after the file's first events are read) and on before and after it.
      const zeros = seen.filter((value) => value === 0).length;
      expect(zeros).toBeGreaterThanOrEqual(whileWriting);
      expect(seen.join(' ')).toMatch(/^(1000 )*(0 )*0( 1000)*$/);
      // The thread is gone: the store checkpoints again, on its own checkpointing thread once it
      // has written often (checkpoint-thread.ts, as here), else in its connection's commits.
      const turns = writeTurnsOf(db);
      await expect
        .poll(() => {
          history.store.renameSession('live-beside-checkpoints', 'After the import');
          return autoCheckpoint() === (turns.checkpointsOnThread() ? 0 : 1000);
        })
        .toBe(true);
      expect(turns.checkpointsOnThread()).toBe(true);
      // What the thread wrote is in the database: the next write starts the WAL over, small (it
      // does so only once every frame in it has been copied; the store's connection copies them
      // itself when the thread left some, now that it checkpoints again).
      history.store.renameSession('live-beside-checkpoints', 'After the import, again');
      expect(walFrames()).toBeLessThan(1000);
    } finally {
      history.cleanup();
    }
  });
});

describe('the WAL after an import on its own thread beside a live run', () => {
  it('is given back: the thread rewinds and truncates it, so no checkpoint of the main thread copies the import', async () => {
    const history = openTempHistory();
    try {
      const db = history.store.db;
      const walBytes = () => statSync(`${db.name}-wal`).size;
      const live = liveRun(history.store, 'live-beside-wal');
      let largest = 0;
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'wal',
        () => {
          live.write();
          largest = Math.max(largest, walBytes());
        },
        2,
      );
      // Read before any later write of this thread's (the timer is stopped first).
      stop();
      const after = walBytes();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      // The import filled the WAL while it wrote; its last checkpoint truncated it, so what is left
      // is at most the live commits made since (a few pages each), not the import's megabytes.
      expect(largest).toBeGreaterThan(1_000_000);
      expect(after).toBeLessThan(largest / 10);
      expect(after).toBeLessThan(200_000);
    } finally {
      history.cleanup();
    }
  }, 60_000);
});

describe("the full-text index's merging beside an import on its own thread", () => {
  it("is the thread's while it writes (live commits merge nothing), every commit's again after, and the index stays whole", async () => {
    const history = openTempHistory();
    try {
      const db = history.store.db;
      const automerge = () =>
        db.prepare("SELECT v FROM messages_fts_config WHERE k = 'automerge'").pluck().get() as
          number | undefined;
      const live = liveRun(history.store, 'live-beside-merging');
      const seen: string[] = [];
      const look = () => seen.push(String(automerge() ?? 'default'));
      // Live commits every 2 ms, and a look at each batch the thread reports written, which comes
      // while the thread has its job however slowly the timer runs on a loaded machine.
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'merging',
        () => {
          live.write();
          look();
        },
        2,
        (done, total) => {
          if (done > total / 2 && done < total) look();
        },
      );
      stop();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      // FTS5's default before the thread's first transaction, off (0) for one stretch of live
      // commits while it wrote, FTS_AUTOMERGE from its last transaction on.
      expect(seen.join(' ')).toMatch(/^(default )*0( 0)*( 4)*$/);
      expect(automerge()).toBe(FTS_AUTOMERGE);
      // How many segments are left depends on the machine's speed (9 here, 14 on a loaded CI run,
      // with the thread's merge steps or without), so only that there are some is asserted here.
      const segments = db
        .prepare('SELECT count(DISTINCT segid) FROM messages_fts_idx')
        .pluck()
        .get() as number;
      expect(segments).toBeGreaterThan(0);
      // Whole, and every message written (imported or live) is found.
      db.prepare("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')").run();
      const found = db
        .prepare("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'item'")
        .pluck()
        .get();
      const indexed = db
        .prepare("SELECT count(*) FROM message_rows WHERE state <> 'streaming' AND content LIKE '%item%'")
        .pluck()
        .get() as number;
      expect(indexed).toBeGreaterThan(4_000);
      expect(found).toBe(indexed);
    } finally {
      history.cleanup();
    }
  }, 60_000);

  it('is given back to every commit when the import is cancelled midway', async () => {
    const history = openTempHistory();
    try {
      const file = join(temp.dir, 'merging-cancelled.json');
      await exportSession(new GeneratedSession(20_000), 'generated-1', 'json', file);
      const controller = new AbortController();
      let seenOff = false;
      // Cancelled at the first batch written after the thread took the merging over.
      const result = importFile(file, history.store, {
        ...ON_THREAD,
        signal: controller.signal,
        onProgress: () => {
          if (seenOff || new FtsMerging(history.store.db).automatic()) return;
          seenOff = true;
          controller.abort();
        },
      });
      await expect(result).rejects.toThrow();
      expect(seenOff).toBe(true);
      expect(new FtsMerging(history.store.db).automatic()).toBe(true);
      expect(history.store.listSessions({ limit: 5 }).total).toBe(0);
    } finally {
      history.cleanup();
    }
  }, 60_000);
});

describe("the store's other writes beside an import on its own thread", () => {
  it('renames, tags, saves fleets and deletes sessions throughout, none refused as busy', async () => {
    const history = openTempHistory();
    try {
      const source = new MemorySessions();
      const small = join(temp.dir, 'beside-writes-small.json');
      await exportSession(source, source.addSession({ title: 'small' }, [...sampleEvents(5)]), 'json', small);
      const targets: string[] = [];
      for (let i = 0; i < 6; i++) targets.push((await importFile(small, history.store)).sessionId);
      let writes = 0;
      const { failures, duringImport, stop } = await whileImporting(
        history.store,
        'beside-writes',
        () => {
          const id = targets[writes % 3] as string;
          history.store.renameSession(id, `renamed ${writes}`);
          history.store.setTags(id, [`t${writes}`]);
          history.store.saveFleet({ ...demoFleet, name: `fleet ${writes}` });
          if (writes % 10 === 0 && targets.length > 3) history.store.deleteSession(targets.pop() as string);
          writes += 1;
        },
        3,
      );
      stop();
      expect(failures).toEqual([]);
      expect(duringImport).toBeGreaterThan(3);
      expect(history.store.getSession(targets[0] as string)?.summary.title).toMatch(/^renamed \d+$/);
      expect(history.store.listSessions({ limit: 50 }).total).toBe(targets.length + 1);
    } finally {
      history.cleanup();
    }
  }, 60_000);
});

describe('an import on its own thread keeps the store whole when it fails', () => {
  it('deletes every row when the writing thread cannot write, and says so', async () => {
    const history = openTempHistory();
    try {
      const broken: SessionWriter = {
        importSession: (meta, events) => history.store.importSession(meta, events),
        beginImport: (meta): ImportInProgress => {
          const inner = history.store.beginImport(meta);
          const thread = inner.thread;
          if (!thread) throw new Error('a store file has a writing thread');
          return {
            ...inner,
            sessionId: inner.sessionId,
            append: (events) => inner.append(events),
            finish: () => inner.finish(),
            abort: () => inner.abort(),
            // A file that is no database: the thread fails on its first statement.
            thread: { ...thread, store: { ...thread.store, file: join(FIXTURES, 'PROVENANCE.md') } },
          };
        },
      };
      const file = join(temp.dir, 'to-fail.json');
      const source = new MemorySessions();
      await exportSession(source, source.addSession({ title: 'x' }, [...sampleEvents(50)]), 'json', file);
      await expect(importFile(file, broken, ON_THREAD)).rejects.toThrow(/writing thread/);
      const count = (table: string) =>
        (history.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect(['sessions', 'event_log', 'message_rows', 'checkpoints', 'session_owners'].map(count)).toEqual([
        0, 0, 0, 0, 0,
      ]);
      // The store still takes the same file on the real thread.
      const result = await importFile(file, history.store, ON_THREAD);
      expect(result.messageCount).toBe(50);
      expect(history.store.getSession(result.sessionId)?.summary.status).toBe('completed');
    } finally {
      history.cleanup();
    }
  }, 60_000);
});
