import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ImportInProgress, ImportThreadHandoff, SessionWriter } from '../../history/ports';
import type { ImportFormat } from './detect';
import { DEFAULT_IMPORT_LIMITS, formatBytes, type ImportLimits } from './limits';
import { TransferError, ioError } from './transfer-error';
import { FIRST_BATCH_EVENTS, MAX_BATCH_EVENTS, nextBatchEvents } from './write-pacing';
import type { ParseJob, ParseReport } from './worker/protocol';
import { ParseWorker } from './worker/worker-client';
import { ImportWriteThread } from './worker/write-thread';
import { decodeEventBatch, type WriteReport } from '../../history';

/**
 * Files smaller than this are written on this thread in paced batches: starting a writing thread
 * (a second connection, its modules loaded) costs more than writing them, and the sample sessions
 * seeded at first launch would hold up start-up for it.
 */
export const THREAD_MIN_BYTES = 1024 * 1024;

/** Batches the parsing thread is asked for ahead of the one being written. */
const BATCHES_AHEAD = 2;
/**
 * Batches passed to the writing thread and not yet committed: what it finds waiting goes into
 * one transaction (see run-write-job.ts), and memory stays bounded.
 */
const WRITES_AHEAD = 4;

export interface ImportOptions {
  /**
   * Progress in bytes of the file: the first half while the file is read and checked, the
   * second while its events are written. Ends with (total, total).
   */
  onProgress?: (done: number, total: number) => void;
  /** Overrides of the default limits (tests, the CLI). */
  limits?: Partial<ImportLimits>;
  /** The file's SHA-256 when the caller already computed it (see fileHash); computed otherwise. */
  sourceHash?: string;
  /**
   * Files of at least this many bytes are written on a writing thread of their own (when the
   * store is a file); smaller ones on this thread. Default THREAD_MIN_BYTES.
   */
  writeThreadFrom?: number;
  /**
   * Aborted: the import stops at its next progress report (each read chunk, each written batch),
   * or as soon as its turn comes if it waits behind another, deletes every session it began, and
   * rejects with the signal's reason. An import already past its last batch is kept.
   */
  signal?: AbortSignal;
}

/**
 * SHA-256 (hex) of a file's bytes, read as a stream. Stored with the imported session, so a
 * second import of the same file can be noticed (SessionWriter.findImport).
 */
export async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (error) {
    throw ioError('read', path, error);
  }
  return hash.digest('hex');
}

/** One session an import created. */
export interface ImportedSession {
  sessionId: string;
  title: string;
  messageCount: number;
}

export interface ImportResult {
  /** The session with the most messages (the first of those, when several tie). */
  sessionId: string;
  format: ImportFormat;
  /** Messages imported, over every session. */
  messageCount: number;
  /** Every session created, in the order they started (one, but for trace files of several conversations). */
  sessionIds: string[];
  sessions: ImportedSession[];
}

/**
 * Imports one file as new read-only sessions: one, or one per conversation of a trace file (see
 * otlp/trace-file.ts). The file is parsed, checked and converted on a worker thread (see
 * worker/run-parse-job.ts) under `ImportLimits`, and the converted events are written by a second
 * thread on a connection of its own (worker/run-write-job.ts), in transactions of at most about
 * TRANSACTION_MS, so the process keeps answering and a live write never waits long for the store;
 * a store in memory is written here instead, in paced batches (write-pacing.ts). Most files are
 * checked whole before anything is written; our own export is checked as it is written, reading
 * and writing at once. Every session stays unfinished until the last event of the last one is
 * written; if reading or writing fails at any point, what was written is deleted, in every
 * session, so a refused file leaves nothing behind. Errors are `TransferError`s.
 */
export async function importFile(
  path: string,
  writer: SessionWriter,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const limits: ImportLimits = { ...DEFAULT_IMPORT_LIMITS, ...options.limits };
  statFile(path, limits);
  const release = await takeTurn();
  try {
    options.signal?.throwIfAborted();
    return await importNow(path, writer, limits, options);
  } finally {
    release();
  }
}

/**
 * Imports run one at a time: others wait their turn, so many uploads at once cannot hold many
 * parsing threads (and their memory) at once.
 */
let lastTurn: Promise<void> = Promise.resolve();

function takeTurn(): Promise<() => void> {
  let release = () => {};
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const previous = lastTurn;
  lastTurn = previous.then(() => turn);
  return previous.then(() => release);
}

async function importNow(
  path: string,
  writer: SessionWriter,
  limits: ImportLimits,
  options: ImportOptions,
): Promise<ImportResult> {
  // Checked again: the file may have changed while this import waited its turn.
  const stats = statFile(path, limits);
  const total = stats.size;
  const threadSized = total >= (options.writeThreadFrom ?? THREAD_MIN_BYTES);
  // A file big enough for the writing thread, for a store that records hashes, is hashed while
  // it is imported, and the hash stored in the thread's last transaction (findImport counts only
  // finished imports, so it finds the same sessions); any other file before its sessions begin.
  const hashLate = threadSized && writer.findImport !== undefined;
  const hashing = settled(
    options.sourceHash !== undefined ? Promise.resolve(options.sourceHash) : fileHash(path),
  );
  const hashNow = hashLate ? undefined : await hashing.value();
  const progress = (done: number) => {
    options.signal?.throwIfAborted();
    options.onProgress?.(Math.min(total, Math.round(done)), total);
  };
  // Started now, so its code loads while the file's first events are read; ended unused when the
  // store has no file for it.
  const writing = threadSized ? settled(ImportWriteThread.boot()) : null;
  const worker = await startParsing(writing, {
    path,
    size: total,
    fileTime: Math.round(stats.mtimeMs),
    limits,
  });
  const sessions: ImportInProgress[] = [];
  try {
    let report = await worker.next();
    while (report.type === 'read') {
      progress(report.bytes / 2);
      report = await worker.next();
    }
    const planned = expect(report, 'planned');
    if (planned.sessions.length === 0) throw new Error("The import's parsing thread planned no session.");
    for (const session of planned.sessions)
      sessions.push(writer.beginImport({ ...session.meta, sourceHash: hashNow }));
    const handoffs = sessions.map((session) => session.thread);
    const onThread = threadSized && everyDefined(handoffs);
    if (hashLate && !onThread) {
      // No writing thread after all (the store has no file): begun again, with the hash.
      const sourceHash = await hashing.value();
      for (const session of sessions.splice(0)) session.abort();
      for (const session of planned.sessions)
        sessions.push(writer.beginImport({ ...session.meta, sourceHash }));
    }
    const messageCounts =
      onThread && writing
        ? await writeOnThread(worker, await writing.value(), sessions, handoffs, planned, progress, () =>
            hashing.value(),
          )
        : await writeHere(worker, sessions, progress);
    const imported = planned.sessions.map((plannedSession, index) => ({
      sessionId: finished(sessions[index] as ImportInProgress, onThread),
      title: plannedSession.meta.title,
      messageCount: messageCounts[index] ?? 0,
    }));
    options.onProgress?.(total, total);
    const largest = imported.reduce((best, next) => (next.messageCount > best.messageCount ? next : best));
    return {
      sessionId: largest.sessionId,
      format: planned.format,
      messageCount: imported.reduce((sum, session) => sum + session.messageCount, 0),
      sessionIds: imported.map((session) => session.sessionId),
      sessions: imported,
    };
  } catch (error) {
    for (const session of sessions) session.abort();
    throw error;
  } finally {
    await worker.close();
    await closeUnused(writing);
  }
}

/** Starts the parsing thread; if it cannot start, a writing thread booted for it is ended. */
async function startParsing(
  writing: { value: () => Promise<ImportWriteThread> } | null,
  job: ParseJob,
): Promise<ParseWorker> {
  try {
    return await ParseWorker.start(job);
  } catch (error) {
    await closeUnused(writing);
    throw error;
  }
}

/** Ends a booted writing thread (at once if it never got a job; a closed one stays closed). */
async function closeUnused(writing: { value: () => Promise<ImportWriteThread> } | null): Promise<void> {
  const thread = await writing?.value().catch(() => null);
  await thread?.close();
}

/**
 * A promise awaited later: its rejection is held (not reported as unhandled) until `value()`
 * is awaited, which rethrows it.
 */
function settled<T>(promise: Promise<T>): { value: () => Promise<T> } {
  promise.catch(() => undefined);
  return { value: () => promise };
}

type Planned = Extract<ParseReport, { type: 'planned' }>;

const everyDefined = <T>(items: Array<T | undefined>): items is T[] =>
  items.every((item) => item !== undefined);

/** A session its writer ended: on the writing thread (already committed), or here. */
const finished = (session: ImportInProgress, onThread: boolean): string =>
  onThread && session.thread ? session.thread.finishedOnThread() : session.finish();

/**
 * The store is a file: the events go to a writing thread with a connection of its own
 * (worker/write-thread.ts), passed on as the parsing thread sends them, and this thread only
 * relays and reports progress as they are committed. The thread's last transaction ends every
 * session. Returns each session's message count.
 */
async function writeOnThread(
  parser: ParseWorker,
  thread: ImportWriteThread,
  sessions: ImportInProgress[],
  handoffs: ImportThreadHandoff[],
  planned: Planned,
  progress: (done: number) => void,
  sourceHash: () => Promise<string>,
): Promise<number[]> {
  const store = (handoffs[0] as ImportThreadHandoff).store;
  try {
    thread.begin({
      store,
      sessions: sessions.map((session, index) => ({
        id: session.sessionId,
        createdAt: planned.sessions[index]?.meta.createdAt ?? 0,
      })),
    });
    const messageCounts = planned.sessions.map(() => 0);
    const written = (report: WriteReport) => {
      if (report.type === 'written') progress(report.done);
    };
    for (let ahead = 0; ahead < BATCHES_AHEAD; ahead++) parser.pull(MAX_BATCH_EVENTS);
    for (;;) {
      const batch = expect(await parser.next(), 'batch');
      if (!batch.last) parser.pull(MAX_BATCH_EVENTS);
      if (!sessions[batch.session])
        throw new Error(`The import's parsing thread sent events of session ${batch.session}.`);
      if (batch.count > 0) thread.write(batch.session, batch.events, batch.done);
      if (batch.messageCount !== null) messageCounts[batch.session] = batch.messageCount;
      while (thread.inFlight > WRITES_AHEAD) written(await thread.next());
      if (batch.last) break;
    }
    while (thread.inFlight > 0) written(await thread.next());
    thread.finish(await sourceHash());
    const report = await thread.next();
    if (report.type !== 'finished')
      throw new Error(`The import's writing thread sent '${report.type}' at the end.`);
    return messageCounts;
  } finally {
    await thread.close();
  }
}

/**
 * The store has no file another connection could open (in memory): the events are written
 * here, in batches paced to take a few milliseconds each (write-pacing.ts), with a turn of the
 * event loop between them. Returns each session's message count.
 */
async function writeHere(
  parser: ParseWorker,
  sessions: ImportInProgress[],
  progress: (done: number) => void,
): Promise<number[]> {
  const messageCounts: number[] = sessions.map(() => 0);
  let batchEvents = FIRST_BATCH_EVENTS;
  // Two batches asked for ahead, and one more as each arrives: the worker converts the next
  // while this one is written, and a slow batch on its side does not leave this thread idle.
  for (let ahead = 0; ahead < BATCHES_AHEAD; ahead++) parser.pull(batchEvents);
  for (;;) {
    const batch = expect(await parser.next(), 'batch');
    if (!batch.last) parser.pull(batchEvents);
    const session = sessions[batch.session];
    if (!session) throw new Error(`The import's parsing thread sent events of session ${batch.session}.`);
    if (batch.count > 0) {
      const started = performance.now();
      session.append(decodeEventBatch(batch.events));
      batchEvents = nextBatchEvents(batchEvents, batch.count, performance.now() - started);
    }
    if (batch.messageCount !== null) messageCounts[batch.session] = batch.messageCount;
    progress(batch.done);
    if (batch.last) return messageCounts;
    await yieldToEventLoop();
  }
}

function statFile(path: string, limits: ImportLimits) {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const missing = typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
    throw missing ? new TransferError('not-found', `No file at ${path}.`) : ioError('read', path, error);
  }
  if (!stats.isFile()) throw new TransferError('invalid-input', `${path} is not a file.`);
  if (stats.size === 0) throw new TransferError('invalid-input', `${path} is empty (0 bytes at offset 0).`);
  if (stats.size > limits.maxFileBytes) {
    throw new TransferError(
      'too-large',
      `${path} is ${formatBytes(stats.size)}; the largest file an import accepts is ${formatBytes(limits.maxFileBytes)}.`,
    );
  }
  return stats;
}

/** The report the protocol allows next, or the worker's failure as an error. */
function expect<T extends 'planned' | 'batch'>(
  report: ParseReport,
  type: T,
): Extract<ParseReport, { type: T }> {
  if (report.type === type) return report as Extract<ParseReport, { type: T }>;
  if (report.type === 'failed') {
    if (report.code === 'internal') throw new Error(`The import failed: ${report.message}`);
    throw new TransferError(report.code, report.message);
  }
  throw new Error(`The import's parsing thread sent '${report.type}' where '${type}' was due.`);
}
