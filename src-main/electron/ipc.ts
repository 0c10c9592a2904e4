import type { BrowserWindow } from 'electron';
import { CHANNEL_NAMES, type Result } from '@shared/contract';
import type { FleetscopeApp } from '../app';
import { forwardInBatches } from '../app/event-batcher';
import { EVENTS_CHANNEL } from './ipc-names';
import { isTrustedSender, type FrameLike } from './sender-check';

/** What an invoke handler reads from Electron's IpcMainInvokeEvent. */
export interface InvokeEventLike {
  readonly senderFrame: FrameLike | null;
}

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
): () => void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, (event, payload) => {
      if (!isTrustedSender(event.senderFrame, rendererUrl)) return UNTRUSTED_SENDER_RESULT;
      return app.dispatcher.dispatch(channel, payload, { surface: 'desktop' });
    });
  }
  return () => CHANNEL_NAMES.forEach((channel) => ipcMain.removeHandler(channel));
}

/** Forwards hub events to a window, coalesced per frame, in seq order. */
export function forwardEvents(app: FleetscopeApp, window: BrowserWindow): () => void {
  return forwardInBatches(app.hub, (events) => {
    if (!window.isDestroyed()) window.webContents.send(EVENTS_CHANNEL, events);
  });
}
