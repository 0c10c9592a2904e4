import { CHANNEL_NAMES, type Result } from '@shared/contract';
import type { FleetscopeApp } from '../app';
import { forwardInBatches } from '../app/delivery/event-batcher';
import { EventClient } from '../app/delivery/event-client';
import { EVENTS_CHANNEL, PICK_FOLDER_CHANNEL } from './ipc-names';
import { isTrustedSender, type FrameLike } from './sender-check';

/** What an invoke handler reads from Electron's IpcMainInvokeEvent. */
export interface InvokeEventLike {
  readonly senderFrame: FrameLike | null;
  /** The calling window's web contents; its id names the window's event client. */
  readonly sender?: { readonly id: number };
}

/** The slice of a BrowserWindow that events are forwarded to. */
export interface WindowLike {
  isDestroyed(): boolean;
  readonly webContents: { readonly id: number; send(channel: string, ...args: unknown[]): void };
}

/**
 * One event client per window (by web contents id): the sessions whose live run events that
 * window watches (`sessions.watch`). Created by whichever comes first, the window's event
 * forwarding or its first call; dropped when the forwarding stops.
 */
export class WindowClients {
  private readonly clients = new Map<number, EventClient>();

  of(webContentsId: number): EventClient {
    let client = this.clients.get(webContentsId);
    if (!client) this.clients.set(webContentsId, (client = new EventClient()));
    return client;
  }

  forget(webContentsId: number): void {
    this.clients.delete(webContentsId);
  }
}

const windowClients = new WindowClients();

export type InvokeListener = (event: InvokeEventLike, payload: unknown) => unknown;

/**
 * The slice of Electron's `ipcMain` the binding uses. Electron's `ipcMain` satisfies it; tests pass
 * a fake. This module only imports Electron's types, so it loads in plain Node.
 */
export interface IpcMainLike {
  handle(channel: string, listener: InvokeListener): void;
  removeHandler(channel: string): void;
}

/** The answer to a call from a frame that is not our renderer's main frame. */
export const UNTRUSTED_SENDER_RESULT: Result<never> = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'forbidden', message: 'Call from an untrusted frame refused' }),
});

/**
 * Binds the contract to ipcMain: one handler per channel, each checking that the call comes from
 * the main frame of our own renderer (served at `rendererUrl`) before dispatching. Returns a
 * function that unbinds all of them.
 */
export function registerIpcHandlers(
  app: Pick<FleetscopeApp, 'dispatcher'>,
  ipcMain: IpcMainLike,
  rendererUrl: string,
  clients: WindowClients = windowClients,
): () => void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, (event, payload) => {
      if (!isTrustedSender(event.senderFrame, rendererUrl)) return UNTRUSTED_SENDER_RESULT;
      const client = event.sender ? clients.of(event.sender.id) : undefined;
      return app.dispatcher.dispatch(channel, payload, { surface: 'desktop', client });
    });
  }
  return () => CHANNEL_NAMES.forEach((channel) => ipcMain.removeHandler(channel));
}

/**
 * Binds the desktop's folder picker (the run form's "Choose…"): `pick` shows the native dialog
 * and answers with the folder's full path, or null when it was cancelled. A frame that is not
 * our renderer's main frame gets null and no dialog. Returns a function that unbinds it.
 */
export function registerFolderPicker(
  ipcMain: IpcMainLike,
  rendererUrl: string,
  pick: () => Promise<string | null>,
): () => void {
  ipcMain.handle(PICK_FOLDER_CHANNEL, async (event) =>
    isTrustedSender(event.senderFrame, rendererUrl) ? pick() : null,
  );
  return () => ipcMain.removeHandler(PICK_FOLDER_CHANNEL);
}

/**
 * Forwards hub events to a window, coalesced per frame, in seq order; run events only of the
 * sessions the window watches.
 */
export function forwardEvents(
  app: Pick<FleetscopeApp, 'hub'>,
  window: WindowLike,
  clients: WindowClients = windowClients,
): () => void {
  const id = window.webContents.id;
  const stop = forwardInBatches(
    app.hub,
    (events) => {
      if (!window.isDestroyed()) window.webContents.send(EVENTS_CHANNEL, events);
    },
    { client: clients.of(id) },
  );
  return () => {
    stop();
    clients.forget(id);
  };
}
