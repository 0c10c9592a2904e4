import {
  callErrorSchema,
  contract,
  IMPORT_UPLOAD_PATH,
  TOKEN_PARAM,
  type Output,
  type Result,
} from '@shared/contract';
import type { ImportRequest, ImportTransfer } from './types';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** What the host answered an upload: its HTTP status and body. */
export interface UploadReply {
  status: number;
  text: string;
}

/**
 * Sends a file as an upload's body and resolves with the host's reply; rejects when the
 * connection was lost or `transfer.signal` stopped it.
 */
export type UploadSender = (url: string, body: Blob, transfer: ImportTransfer) => Promise<UploadReply>;

const aborted = () => new DOMException('The upload was cancelled.', 'AbortError');

const UPLOAD_HEADERS = { 'Content-Type': 'application/octet-stream' };

/**
 * The part of XMLHttpRequest used here, declared so this file also compiles without the DOM
 * library (the Node tests import it).
 */
interface UploadRequest {
  readonly status: number;
  readonly responseText: string;
  readonly upload: {
    onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;
  };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
  abort(): void;
}

const XhrClass = (globalThis as { XMLHttpRequest?: new () => UploadRequest }).XMLHttpRequest;

/**
 * Sends with XMLHttpRequest, the one browser API that reports an upload's progress everywhere
 * (a fetch with a streamed body reports nothing, and needs HTTP/2 to stream at all). Aborting the
 * signal aborts the request, which closes its connection: the host then cancels the import.
 */
function sendWithXhr(Xhr: new () => UploadRequest): UploadSender {
  return (url, body, { onUpload, signal }) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(aborted());
      const xhr = new Xhr();
      const onAbort = () => xhr.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      xhr.open('POST', url);
      for (const [name, value] of Object.entries(UPLOAD_HEADERS)) xhr.setRequestHeader(name, value);
      // Listened to before send(): only then does the browser report the upload's progress.
      if (onUpload) {
        xhr.upload.onprogress = (event) =>
          onUpload(event.loaded, event.lengthComputable ? event.total : body.size);
      }
      xhr.onload = () => {
        settle();
        resolve({ status: xhr.status, text: xhr.responseText });
      };
      xhr.onerror = () => {
        settle();
        reject(new Error('The connection was lost.'));
      };
      xhr.onabort = () => {
        settle();
        reject(aborted());
      };
      onUpload?.(0, body.size);
      xhr.send(body);
    });
}

/** Sends with fetch (where there is no XMLHttpRequest: Node, workers): no upload progress. */
export function sendWithFetch(send: FetchLike = (url, init) => fetch(url, init)): UploadSender {
  return async (url, body, { signal }) => {
    const response = await send(url, {
      method: 'POST',
      body,
      headers: UPLOAD_HEADERS,
      credentials: 'same-origin',
      ...(signal ? { signal } : {}),
    });
    return { status: response.status, text: await response.text() };
  };
}

const defaultSender = (): UploadSender => (XhrClass ? sendWithXhr(XhrClass) : sendWithFetch());

type ImportAnswer = Result<Output<'sessions.importData'>>;

const unavailable = (message: string): ImportAnswer => ({
  ok: false,
  error: { code: 'unavailable', message },
});

/** The upload URL for the page we were served from (same origin, so the CSP's 'self' allows it). */
export function uploadUrlFor(location: { host: string; protocol: string }, token: string | null): string {
  const query = token ? `?${TOKEN_PARAM}=${encodeURIComponent(token)}` : '';
  return `${location.protocol}//${location.host}${IMPORT_UPLOAD_PATH}${query}`;
}

/**
 * Reads the host's answer: the channel's Result as JSON, checked against the channel's output
 * schema like any answer; a body that is not one (a proxy's error page) becomes a clear error.
 */
function readAnswer(response: UploadReply, fileName: string): ImportAnswer {
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return unavailable(`Fleetscope answered the upload of ${fileName} with HTTP ${response.status}.`);
  }
  if (typeof body !== 'object' || body === null || !('ok' in body)) {
    return unavailable(`Fleetscope answered the upload of ${fileName} with HTTP ${response.status}.`);
  }
  const answer = body as { ok: unknown; value?: unknown; error?: unknown };
  if (answer.ok === true) {
    const value = contract['sessions.importData'].output.safeParse(answer.value);
    if (value.success) return { ok: true, value: value.data };
    return unavailable(`Fleetscope's answer to the upload of ${fileName} was not understood.`);
  }
  const error = callErrorSchema.safeParse(answer.error);
  if (error.success) return { ok: false, error: error.data };
  return unavailable(`Fleetscope refused the upload of ${fileName} (HTTP ${response.status}).`);
}

/**
 * Sends a file to the web host's import upload as the request body: the browser streams it from
 * disk, so neither the page nor the host holds it whole; `transfer.onUpload` follows the bytes sent.
 * Resolves to the `sessions.importData` answer; a lost connection, or a cancel through
 * `transfer.signal` (which stops the host's import too), is an `unavailable` error, never a rejection.
 */
export async function uploadImport(
  uploadUrl: string,
  file: Blob,
  request: ImportRequest,
  transfer: ImportTransfer = {},
  send: UploadSender = defaultSender(),
): Promise<ImportAnswer> {
  const url = new URL(uploadUrl);
  url.searchParams.set('fileName', request.fileName);
  if (request.taskId) url.searchParams.set('taskId', request.taskId);
  if (request.allowDuplicate) url.searchParams.set('allowDuplicate', 'true');
  let reply: UploadReply;
  try {
    reply = await send(url.toString(), file, transfer);
  } catch {
    if (transfer.signal?.aborted) return unavailable(`The import of ${request.fileName} was cancelled.`);
    return unavailable(
      `The upload of ${request.fileName} was interrupted: the connection to Fleetscope was lost.`,
    );
  }
  return readAnswer(reply, request.fileName);
}
