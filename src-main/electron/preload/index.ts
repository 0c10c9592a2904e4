import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANNEL_NAMES, type Delivered } from '@shared/contract';
import { EVENTS_CHANNEL } from '../ipc-names';

/**
 * The renderer's only door to main: one method per contract channel, and one event
 * subscription that strips Electron's event object and returns its unsubscribe function.
 */
const calls = Object.fromEntries(
  CHANNEL_NAMES.map((channel) => [channel, (payload: unknown) => ipcRenderer.invoke(channel, payload)]),
);

contextBridge.exposeInMainWorld('fleetscope', {
  surface: 'desktop',
  calls,
  onEvents(listener: (events: Delivered[]) => void): () => void {
    const wrapped = (_event: IpcRendererEvent, events: Delivered[]) => listener(events);
    ipcRenderer.on(EVENTS_CHANNEL, wrapped);
    return () => ipcRenderer.removeListener(EVENTS_CHANNEL, wrapped);
  },
});
