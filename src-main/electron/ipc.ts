import { ipcMain, type BrowserWindow } from 'electron';
import { CHANNEL_NAMES } from '@shared/contract';
import type { FleetscopeApp } from '../app';
import { forwardInBatches } from '../app/event-batcher';
import { EVENTS_CHANNEL } from './ipc-names';
import { isTrustedFrame } from './window';

/**
 * Binds the contract to ipcMain: one handler per channel, each checking that the call comes from
 * the main frame of our own renderer before dispatching. Returns a function that unbinds all.
 */
export function registerIpcHandlers(app: FleetscopeApp): () => void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, (event, payload: unknown) => {
      if (!isTrustedFrame(event.senderFrame)) {
        return { ok: false, error: { code: 'forbidden', message: 'Call from an untrusted frame refused' } };
      }
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
