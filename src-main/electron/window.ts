import { app, BrowserWindow, screen, shell, type WebFrameMain } from 'electron';
import { join } from 'node:path';
import { loadWindowBounds, saveWindowBounds } from './window-state';

/** The built renderer, or the dev server's URL under `electron-vite dev` (never when packaged). */
function rendererUrl(): string {
  const devUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  if (devUrl) return devUrl;
  return `file://${join(__dirname, '../renderer/index.html')}`;
}

/** True when a frame is the main frame of one of our windows showing our renderer. */
export function isTrustedFrame(frame: WebFrameMain | null): boolean {
  if (!frame || frame.parent !== null) return false;
  const expected = new URL(rendererUrl());
  try {
    const actual = new URL(frame.url);
    return expected.protocol === 'file:'
      ? actual.protocol === 'file:' && actual.pathname === expected.pathname
      : actual.origin === expected.origin;
  } catch {
    return false;
  }
}

/**
 * The one window factory: every security setting of DESIGN.md section 7 is set here and nowhere
 * else. Navigation, new windows, webviews and permission requests are all denied.
 */
export function createMainWindow(dataDir: string): BrowserWindow {
  const saved = loadWindowBounds(dataDir);
  const onScreen =
    saved.x !== undefined &&
    saved.y !== undefined &&
    screen
      .getAllDisplays()
      .some(
        ({ workArea: area }) =>
          saved.x! >= area.x - 50 &&
          saved.y! >= area.y - 50 &&
          saved.x! < area.x + area.width &&
          saved.y! < area.y + area.height,
      );
  const window = new BrowserWindow({
    width: saved.width,
    height: saved.height,
    ...(onScreen ? { x: saved.x, y: saved.y } : {}),
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Fleetscope',
    backgroundColor: '#1b1d22',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  if (saved.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());

  const contents = window.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (url !== contents.getURL()) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));

  window.on('close', () => {
    const bounds = window.getNormalBounds();
    saveWindowBounds(dataDir, { ...bounds, maximized: window.isMaximized() });
  });
  void window.loadURL(rendererUrl());
  return window;
}
