import type { WebPreferences } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The security settings of docs/ARCHITECTURE.md section 8 for every window, in one place: an isolated,
 * sandboxed renderer without Node, with web security on and no <webview>. The only bridge into the
 * page is the preload at `preloadPath`. Pure (type-only 'electron' import) so tests can assert it.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    enableBlinkFeatures: '',
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  };
}

export interface RendererLocationInput {
  /** `app.isPackaged`: a packaged app never loads a dev server, whatever the environment says. */
  isPackaged: boolean;
  /** `ELECTRON_RENDERER_URL`, set by `electron-vite dev`. */
  devServerUrl: string | undefined;
  /** The built main bundle's folder (`__dirname` of out/main). */
  mainDir: string;
}

/** The URL our renderer is served from: the dev server in development, else the built index.html. */
export function rendererLocation({ isPackaged, devServerUrl, mainDir }: RendererLocationInput): string {
  if (!isPackaged && devServerUrl) return devServerUrl;
  return pathToFileURL(join(mainDir, '../renderer/index.html')).href;
}

/**
 * What a `window.open` or target=_blank link may do: never open an Electron window; an https
 * link opens in the user's browser, anything else (http, file, javascript:, custom schemes) is dropped.
 */
export function externalLinkTarget(url: string): string | null {
  try {
    return new URL(url).protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A window may only reload what it shows; every other navigation is refused. */
export function isAllowedNavigation(currentUrl: string, targetUrl: string): boolean {
  return targetUrl === currentUrl;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * True when a saved window position still lands on one of the displays' work areas (with a 50 px
 * grace for a title bar nudged past the edge), so a window is never restored off-screen.
 */
export function isOnScreen(position: { x?: number; y?: number }, workAreas: readonly Rect[]): boolean {
  const { x, y } = position;
  if (x === undefined || y === undefined) return false;
  return workAreas.some(
    (area) => x >= area.x - 50 && y >= area.y - 50 && x < area.x + area.width && y < area.y + area.height,
  );
}
