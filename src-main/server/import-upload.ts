import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { LIMITS, MAX_IMPORT_BYTES, type CallError, type ErrorCode, type Result } from '@shared/contract';
import { AppError, readOnlyMessage, toAppError, type FleetscopeApp } from '../app';
import { ImportCancelled, importUploadedFile, uploadName } from '../app/services/import-upload';
import { BASE_HEADERS, type AccessVerdict } from './security';

/** Uploads received or imported at once; more are refused (429) rather than filling the disk. */
const MAX_CONCURRENT_UPLOADS = 4;
/** Leftovers of a host that died mid-upload are removed at the next start once this old. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;
/** The media types an upload may declare: the file's bytes as they are. */
const ACCEPTED_TYPES = ['application/octet-stream', 'application/json'];

/** The query of an upload: the `sessions.importData` fields other than the text. */
const uploadQuerySchema = z
  .object({
    fileName: z.string().min(1).max(LIMITS.title),
    taskId: z.string().min(1).max(LIMITS.id).optional(),
    allowDuplicate: z.enum(['true', 'false']).optional(),
    token: z.string().optional(),
  })
  .strict();

/** A refusal before the import ran: its HTTP status and the error the page shows. */
class UploadRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const HTTP_STATUS: Record<ErrorCode, number> = {
  'unknown-channel': 404,
  'invalid-input': 400,
  'too-large': 413,
  'not-found': 404,
  conflict: 409,
  'read-only': 409,
  unavailable: 503,
  'provider-error': 502,
  'io-error': 500,
  forbidden: 403,
  internal: 500,
};

function answer(response: ServerResponse, status: number, result: Result<unknown>, close = false): void {
  if (response.headersSent || response.destroyed) return;
  const body = JSON.stringify(result);
  response.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    // A refused body is not read to its end: the connection is closed after the answer.
    ...(close ? { Connection: 'close' } : {}),
  });
  response.end(body);
}

const refusal = (error: CallError): Result<never> => ({ ok: false, error });

function checkRequest(request: IncomingMessage, url: URL, verdict: AccessVerdict) {
  if (request.method !== 'POST') throw new UploadRefusal(405, 'invalid-input', 'Imports are sent with POST.');
  if (!verdict.ok) throw new UploadRefusal(verdict.status, 'forbidden', `${verdict.reason}.`);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!ACCEPTED_TYPES.includes(mediaType)) {
    throw new UploadRefusal(
      415,
      'invalid-input',
      `An import is sent as ${ACCEPTED_TYPES.join(' or ')}, not ${mediaType || 'an undeclared type'}.`,
    );
  }
  const parsed = uploadQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`);
    throw new UploadRefusal(400, 'invalid-input', `Invalid import request: ${issues.slice(0, 3).join('; ')}`);
  }
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_IMPORT_BYTES) throw tooLarge(parsed.data.fileName);
  if (declared === '0') throw new UploadRefusal(400, 'invalid-input', `${parsed.data.fileName} is empty.`);
  return parsed.data;
}

function tooLarge(fileName: string): UploadRefusal {
  const limitMb = Math.round(MAX_IMPORT_BYTES / (1024 * 1024));
  return new UploadRefusal(
    413,
    'too-large',
    `${fileName} is larger than ${limitMb} MB, the most the app imports (the command line has no limit).`,
  );
}

/**
 * Writes a request's body to `path` as it arrives (memory bounded by the stream buffers),
 * hashing it on the way and stopping past `MAX_IMPORT_BYTES`. Resolves with the SHA-256 once the
 * file is complete and closed; rejects (the partial file closed) when the client goes away, the
 * body is too large or the disk refuses.
 */
function receiveBody(request: IncomingMessage, path: string, fileName: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const file = createWriteStream(path, { flags: 'wx' });
    const hash = createHash('sha256');
    let bytes = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.pause();
      if (file.closed) return reject(error);
      file.destroy();
      file.once('close', () => reject(error));
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_IMPORT_BYTES) return fail(tooLarge(fileName));
      hash.update(chunk);
      if (!file.write(chunk)) {
        request.pause();
        file.once('drain', () => request.resume());
      }
    };
    request.on('data', onData);
    request.once('end', () => {
      if (settled) return;
      if (bytes === 0) return fail(new UploadRefusal(400, 'invalid-input', `${fileName} is empty.`));
      settled = true;
      file.once('error', (error) =>
        reject(new UploadRefusal(500, 'io-error', `The upload could not be stored: ${error.message}`)),
      );
      file.once('finish', () => resolve(hash.digest('hex')));
      file.end();
    });
    // Closed before its end: the client went away (aborted upload, closed tab).
    request.once('close', () => {
      if (!request.complete) fail(new UploadRefusal(400, 'invalid-input', 'The upload was aborted.'));
    });
    request.once('error', (error) => fail(error));
    file.once('error', (error) =>
      fail(new UploadRefusal(500, 'io-error', `The upload could not be stored: ${error.message}`)),
    );
  });
}

/**
 * Reads what is left of a refused request's body without keeping it, then calls `done`; at once
 * when it was read already, and as soon as more than MAX_IMPORT_BYTES came (the answer closes the
 * connection either way).
 */
function discardBody(request: IncomingMessage, done: () => void): void {
  if (request.complete || request.destroyed) return done();
  let dropped = 0;
  let called = false;
  const finish = () => {
    if (called) return;
    called = true;
    request.off('data', onData);
    done();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > MAX_IMPORT_BYTES) finish();
  };
  request.on('data', onData);
  request.once('end', finish);
  request.resume();
}

/** Removes what a host that stopped mid-upload left in the uploads folder (old entries only). */
function removeStaleUploads(folder: string): void {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  const before = Date.now() - STALE_UPLOAD_MS;
  for (const entry of entries) {
    const path = join(folder, entry);
    try {
      if (statSync(path).mtimeMs < before) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

/**
 * The web host's import upload (`POST IMPORT_UPLOAD_PATH`, see the contract's wire.ts): after
 * the same access checks as the WebSocket (host, origin, token), a declared media type and the
 * size limit, the body is streamed to a temp file in the data folder's `uploads/` and imported
 * through the file import entry, with progress as `task.progress` events under the page's task
 * id. Answers the `sessions.importData` Result as JSON, with an HTTP status matching its error.
 * The temp file is deleted once the import ends, and at once when the upload fails or is aborted
 * (nothing is imported then). A connection that closes before its answer (the tab closed or
 * reloaded, or the page's Cancel) cancels an import still running, which deletes what it wrote.
 */
export function importUploadRoute(
  app: FleetscopeApp,
  access: (request: IncomingMessage, url: URL) => AccessVerdict,
): (request: IncomingMessage, response: ServerResponse, url: URL) => void {
  const uploads = join(app.info.dataDir, 'uploads');
  removeStaleUploads(uploads);
  /** Uploads being received or imported now. */
  let inFlight = 0;

  const run = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const query = checkRequest(request, url, access(request, url));
    if (app.readOnly) throw new UploadRefusal(403, 'read-only', readOnlyMessage(app.info.dataDir));
    if (inFlight >= MAX_CONCURRENT_UPLOADS) {
      throw new UploadRefusal(
        429,
        'unavailable',
        'Other imports are being uploaded; try again when they finish.',
      );
    }
    inFlight++;
    let folder: string | null = null;
    // The connection closing before the answer went out (a closed or reloaded tab, a Cancel in
    // the page) cancels the import: what it wrote is deleted, as for a refused file.
    const pageGone = new AbortController();
    const onClose = () => {
      if (!response.writableFinished) pageGone.abort();
    };
    response.once('close', onClose);
    try {
      mkdirSync(uploads, { recursive: true });
      folder = mkdtempSync(join(uploads, 'import-'));
      // The upload keeps its own name, so refusals name the file the person picked.
      const path = join(folder, uploadName(query.fileName));
      const sourceHash = await receiveBody(request, path, query.fileName);
      const value = await importUploadedFile(app, {
        path,
        fileName: query.fileName,
        taskId: query.taskId,
        allowDuplicate: query.allowDuplicate === 'true',
        sourceHash,
        signal: pageGone.signal,
      });
      answer(response, 200, { ok: true, value });
    } finally {
      response.off('close', onClose);
      inFlight--;
      if (folder) rmSync(folder, { recursive: true, force: true });
    }
  };

  return (request, response, url) => {
    run(request, response, url).catch((thrown: unknown) => {
      // Nobody is left to answer: the page went away and its import was undone.
      if (thrown instanceof ImportCancelled) return app.logger.info(thrown.message);
      if (thrown instanceof UploadRefusal) {
        if (thrown.status === 405) response.setHeader('Allow', 'POST');
        const send = () =>
          answer(response, thrown.status, refusal({ code: thrown.code, message: thrown.message }), true);
        // Past the size limit: answered at once and closed. Otherwise the rest of the body is
        // read and dropped first, so a browser still sending gets the answer, not a reset.
        return thrown.status === 413 ? send() : discardBody(request, send);
      }
      const error = toAppError(thrown);
      if (error instanceof AppError) {
        return answer(
          response,
          HTTP_STATUS[error.code],
          refusal({ code: error.code, message: error.message }),
        );
      }
      app.logger.error('An import upload failed', { err: thrown });
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      answer(response, 500, refusal({ code: 'internal', message: `The import failed: ${message}` }));
    });
  };
}
