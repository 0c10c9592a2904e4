import { TOKEN_PARAM } from '@shared/contract';
import { createIpcBridge } from './ipc-bridge';
import { uploadUrlFor } from './upload-import';
import { createWsBridge, socketUrlFor } from './ws-bridge';
import type { Bridge, PreloadApi } from './types';

export type { Bridge, ConnectionState, ImportRequest } from './types';

const TOKEN_KEY = 'fleetscope.token';

/**
 * Picks the transport at boot: the preload API inside Electron, the web host's WebSocket in a
 * browser. In the browser the launch token moves from the URL to sessionStorage (so it is not
 * left in history or shared by copy-paste) and survives reloads.
 */
export function createBridge(): Bridge {
  const preload = (window as unknown as { fleetscope?: PreloadApi }).fleetscope;
  if (preload) return createIpcBridge(preload);
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get(TOKEN_PARAM);
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete(TOKEN_PARAM);
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  const token = fromUrl ?? sessionStorage.getItem(TOKEN_KEY);
  return createWsBridge({
    url: socketUrlFor(window.location, token),
    uploadUrl: uploadUrlFor(window.location, token),
  });
}
export { setBridge, useBridge } from './current';
