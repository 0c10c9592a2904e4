import { ipcMain, type BrowserWindow } from 'electron';
import { CHANNEL_NAMES, type Delivered } from '@shared/contract';
import type { FleetscopeApp } from '../app';
import { EVENTS_CHANNEL } from './ipc-names';
import { isTrustedFrame } from './window';

/** Events are sent to a window in one packed message at most once per this many ms (a frame). */
const FLUSH_MS = 16;

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
  let pending: Delivered[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0 || window.isDestroyed()) return;
    window.webContents.send(EVENTS_CHANNEL, pending);
    pending = [];
  };
  const unsubscribe = app.hub.onDidEmit((event) => {
    pending.push(event);
    // Progress goes out at once: a long import runs synchronously and timers wait for its end.
    if (event.channel === 'task.progress') flush();
    else timer ??= setTimeout(flush, FLUSH_MS);
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
