import { CHANNEL_NAMES, type ChannelName, type Delivered } from '@shared/contract';
import { EVENTS_CHANNEL, PICK_FOLDER_CHANNEL } from '../ipc-names';

/** The global name the preload exposes the API under: `window.fleetscope`. */
export const PRELOAD_GLOBAL = 'fleetscope';

/**
 * The slice of Electron's `ipcRenderer` the preload uses. Structural (no 'electron' import) so the
 * API is built and tested in plain Node; Electron's `ipcRenderer` satisfies it.
 */
export interface IpcRendererLike {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, events: Delivered[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, events: Delivered[]) => void): unknown;
}

/** What the preload exposes: the renderer bridge's PreloadApi. */
export interface ExposedApi {
  surface: 'desktop';
  /** Exactly one method per contract channel, nothing else. */
  calls: Record<ChannelName, (payload: unknown) => Promise<unknown>>;
  /** Subscribes to batched events; the listener never sees Electron's event object. */
  onEvents(listener: (events: Delivered[]) => void): () => void;
  /** The native folder picker: the chosen folder's full path, or null when cancelled. */
  pickFolder(): Promise<string | null>;
}

/**
 * The renderer's only door to main: one method per contract channel, and one event subscription
 * that strips Electron's event object and returns its unsubscribe function, and the native folder
 * picker (its answer checked to be a path or null). Nothing else of
 * `ipcRenderer` (send, sendSync, arbitrary channels) is reachable from the page.
 */
export function buildPreloadApi(ipcRenderer: IpcRendererLike): ExposedApi {
  const calls = Object.fromEntries(
    CHANNEL_NAMES.map((channel) => [channel, (payload: unknown) => ipcRenderer.invoke(channel, payload)]),
  ) as ExposedApi['calls'];
  return {
    surface: 'desktop',
    calls,
    onEvents(listener) {
      const wrapped = (_event: unknown, events: Delivered[]) => listener(events);
      ipcRenderer.on(EVENTS_CHANNEL, wrapped);
      return () => {
        ipcRenderer.removeListener(EVENTS_CHANNEL, wrapped);
      };
    },
    async pickFolder() {
      const path = await ipcRenderer.invoke(PICK_FOLDER_CHANNEL, null);
      return typeof path === 'string' && path.length > 0 ? path : null;
    },
  };
}
