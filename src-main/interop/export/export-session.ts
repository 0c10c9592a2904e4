import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { RunEvent } from '@shared/domain';
import type { SessionReader } from '../../history/ports';
import { TransferError, ioError } from '../import/transfer-error';
import { ChunkWriter } from './chunk-writer';
import { renderHtml } from './html';
import { renderJson } from './json';
import { renderMarkdown } from './markdown';
import { renderOtlp } from './otlp';
import { Redactor } from './redact';
import type { ExportFormat, Renderer } from './render-types';

export interface ExportOptions {
  /** Events written so far and the session's event count. */
  onProgress?: (done: number, total: number) => void;
  /** Where `apiKeyEnv` variables are looked up for masking; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface ExportResult {
  bytes: number;
  events: number;
  /** How many writes reached the stream (the export is chunked, never one string). */
  chunks: number;
}

const RENDERERS: Record<ExportFormat, Renderer> = {
  json: renderJson,
  md: renderMarkdown,
  html: renderHtml,
  otlp: renderOtlp,
};

const PROGRESS_EVERY = 500;

/**
 * Streams a session in `format` to `out` (which is not ended: it may be stdout).
 * Throws `not-found` for an unknown session; stream failures reject.
 */
export async function exportToStream(
  reader: SessionReader,
  sessionId: string,
  format: ExportFormat,
  out: Writable,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const session = reader.getSession(sessionId);
  if (!session) throw new TransferError('not-found', `No session with id ${sessionId}.`);
  const total = reader.countEvents(sessionId);
  const redactor = new Redactor([session.fleet], options.env ?? process.env);
  let done = 0;
  function* events(): Generator<RunEvent> {
    for (const event of reader.iterateEvents(sessionId)) {
      yield redactor.event(event);
      if (++done % PROGRESS_EVERY === 0) options.onProgress?.(done, total);
    }
  }
  const writer = new ChunkWriter(out);
  const input = { summary: session.summary, fleet: redactor.fleet(session.fleet), events: events() };
  for (const piece of RENDERERS[format](input)) {
    const flushing = writer.write(piece);
    if (flushing) await flushing;
  }
  await writer.flush();
  options.onProgress?.(done, total);
  return { bytes: writer.bytes, events: done, chunks: writer.chunks };
}

/**
 * Exports to a file atomically: it is written beside the target under a temporary name and
 * renamed into place only when complete, so a failure (unwritable folder, full disk, a store
 * error midway) leaves no partial file. Errors are `TransferError`s.
 */
export async function exportSession(
  reader: SessionReader,
  sessionId: string,
  format: ExportFormat,
  outPath: string,
  options: ExportOptions = {},
): Promise<ExportResult> {
  if (!reader.getSession(sessionId)) throw new TransferError('not-found', `No session with id ${sessionId}.`);
  const partPath = join(dirname(outPath), `.${basename(outPath)}.${process.pid}.${Date.now()}.part`);
  let stream: WriteStream | null = null;
  try {
    stream = createWriteStream(partPath, { flags: 'wx' });
    await once(stream, 'open');
    const failed = once(stream, 'error').then(([error]: unknown[]) => Promise.reject(error));
    failed.catch(() => undefined);
    const result = await Promise.race([exportToStream(reader, sessionId, format, stream, options), failed]);
    stream.end();
    await Promise.race([once(stream, 'close'), failed]);
    renameSync(partPath, outPath);
    return result;
  } catch (error) {
    stream?.destroy();
    removeQuietly(partPath);
    if (error instanceof TransferError) throw error;
    throw ioError('write', outPath, error);
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was created there (the folder is missing or not a folder).
  }
}
