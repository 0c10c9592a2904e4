import { app, BrowserWindow, screen, shell } from 'electron';
import { join } from 'node:path';
import {
  externalLinkTarget,
  isAllowedNavigation,
  isOnScreen,
  rendererLocation,
  secureWebPreferences,
} from './window-options';
import { loadWindowBounds, saveWindowBounds } from './window-state';

/** The built renderer, or the dev server's URL under `electron-vite dev` (never when packaged). */
export function rendererUrl(): string {
  return rendererLocation({
    isPackaged: app.isPackaged,
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
    mainDir: __dirname,
  });
}

/**
 * The one window factory: the security settings come from `secureWebPreferences` and nowhere
 * else. Navigation, new windows, webviews and permission requests are all denied.
 */
export function createMainWindow(dataDir: string): BrowserWindow {
  const saved = loadWindowBounds(dataDir);
  const onScreen = isOnScreen(
    saved,
    screen.getAllDisplays().map((display) => display.workArea),
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
    webPreferences: secureWebPreferences(join(__dirname, '../preload/index.cjs')),
  });
  if (saved.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());

  const contents = window.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalLinkTarget(url);
    if (external) void shell.openExternal(external);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(contents.getURL(), url)) event.preventDefault();
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
