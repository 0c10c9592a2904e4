import { app, BrowserWindow, dialog } from 'electron';
import { join } from 'node:path';
import { createApp, type FleetscopeApp } from '../app';
import { forwardEvents, registerIpcHandlers } from './ipc';
import { createSafeStorageKeyVault } from './key-vault';
import { installMenu } from './menu';
import { electronSqliteBinding } from './native-binding';
import { createMainWindow } from './window';

app.setName('Fleetscope');
if (process.env.FLEETSCOPE_DATA_DIR) app.setPath('userData', process.env.FLEETSCOPE_DATA_DIR);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let fleetscope: FleetscopeApp | null = null;
  let mainWindow: BrowserWindow | null = null;

  const openWindow = () => {
    if (!fleetscope) return;
    const window = createMainWindow(fleetscope.info.dataDir);
    const stopForwarding = forwardEvents(fleetscope, window);
    window.on('closed', () => {
      stopForwarding();
      if (mainWindow === window) mainWindow = null;
    });
    mainWindow = window;
  };

  app.on('second-instance', () => {
    if (!mainWindow) return openWindow();
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });

  void app.whenReady().then(() => {
    fleetscope = createApp({
      dataDir: app.getPath('userData'),
      surface: 'desktop',
      nativeBinding: electronSqliteBinding(),
      keyVault: createSafeStorageKeyVault(app.getPath('userData')),
      resourcesDir: app.isPackaged ? process.resourcesPath : join(app.getAppPath(), 'resources'),
    });
    if (fleetscope.movedAsideTo) {
      void dialog.showMessageBox({
        type: 'warning',
        message: 'The Fleetscope store was damaged',
        detail: `It was moved to ${fleetscope.movedAsideTo} and a new, empty store was started.`,
      });
    }
    registerIpcHandlers(fleetscope);
    installMenu();
    openWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) openWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let closing = false;
  app.on('will-quit', (event) => {
    if (!fleetscope || closing) return;
    closing = true;
    event.preventDefault();
    void fleetscope.close().finally(() => app.quit());
  });
}
