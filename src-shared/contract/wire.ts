import type { Result } from './define';
import type { Delivered } from './events';

/** Messages over the WebSocket binding. Plain JSON. */
export type ClientFrame =
  | { type: 'call'; id: number; channel: string; payload: unknown }
  /**
   * Sent on every (re)connect: the host launch it last heard from (`epoch`, null at first), the
   * last event it applied, and the sessions it watches (as `sessions.watch` sets them), so the
   * replay of missed events already carries their run events.
   */
  | { type: 'hello'; epoch: string | null; lastSeq: number; watch?: string[] };

export type ServerFrame =
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'events'; events: Delivered[] }
  /**
   * Reply to hello, followed by any missed events. `resync` means the client's state cannot be
   * healed by replay (a new host launch, or too far behind): it must reload what it shows.
   */
  | { type: 'welcome'; epoch: string; seq: number; resync: boolean };

export const WS_PATH = '/ws';
export const TOKEN_PARAM = 'token';

/**
 * The web host's import upload: `POST` the file's bytes as the body (Content-Type
 * application/octet-stream or application/json, at most MAX_IMPORT_BYTES) with the token and
 * the `sessions.importData` fields other than `content` in the query (`fileName`, optional
 * `taskId`, `allowDuplicate=true`). The answer is that channel's Result as JSON.
 */
export const IMPORT_UPLOAD_PATH = '/api/import';
