import {
  callErrorSchema,
  contract,
  IMPORT_UPLOAD_PATH,
  TOKEN_PARAM,
  type Output,
  type Result,
} from '@shared/contract';
import type { ImportRequest } from './types';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

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
async function readAnswer(response: Response, fileName: string): Promise<ImportAnswer> {
  let body: unknown;
  try {
    body = await response.json();
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
 * disk, so neither the page nor the host holds it whole. Resolves to the `sessions.importData`
 * answer; a lost connection is an `unavailable` error, never a rejection.
 */
export async function uploadImport(
  uploadUrl: string,
  file: Blob,
  request: ImportRequest,
  send: FetchLike = (url, init) => fetch(url, init),
): Promise<ImportAnswer> {
  const url = new URL(uploadUrl);
  url.searchParams.set('fileName', request.fileName);
  if (request.taskId) url.searchParams.set('taskId', request.taskId);
  if (request.allowDuplicate) url.searchParams.set('allowDuplicate', 'true');
  let response: Response;
  try {
    response = await send(url.toString(), {
      method: 'POST',
      body: file,
      headers: { 'Content-Type': 'application/octet-stream' },
      credentials: 'same-origin',
    });
  } catch {
    return unavailable(
      `The upload of ${request.fileName} was interrupted: the connection to Fleetscope was lost.`,
    );
  }
  return readAnswer(response, request.fileName);
}
