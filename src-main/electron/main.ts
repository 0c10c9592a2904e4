import { app, BrowserWindow, dialog, ipcMain, type OpenDialogOptions } from 'electron';
import { join } from 'node:path';
import { createApp, type FleetscopeApp } from '../app';
import { forwardEvents, registerFolderPicker, registerIpcHandlers } from './ipc';
import { createSafeStorageKeyVault } from './key-vault';
import { installMenu } from './menu';
import { electronSqliteBinding } from './native-binding';
import { createMainWindow, rendererUrl } from './window';

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

  /** File > Import Transcript…: pick a file, import it, say what happened. */
  const importTranscript = async () => {
    if (!fleetscope) return;
    const picked = await dialog.showOpenDialog({
      title: 'Import a transcript',
      properties: ['openFile'],
      filters: [
        {
          name: 'Transcripts (Fleetscope, AutoGen, OpenAI messages, traces, ChatDev logs)',
          extensions: ['json', 'log'],
        },
      ],
    });
    const path = picked.filePaths[0];
    if (picked.canceled || !path) return;
    try {
      const result = await fleetscope.importFile(path);
      void dialog.showMessageBox({
        type: 'info',
        message: 'Transcript imported',
        detail: `${result.messageCount} messages (${result.format}). It is at the top of the Sessions list.`,
      });
    } catch (error) {
      fleetscope.logger.warn('A transcript could not be imported from the menu', { path, err: error });
      dialog.showErrorBox(
        'The file could not be imported',
        error instanceof Error ? error.message : String(error),
      );
    }
  };

  /** The run form's "Choose…": the folder the agents' tools may read, over the app's window. */
  const pickFolder = async (): Promise<string | null> => {
    const options: OpenDialogOptions = {
      title: 'Choose the folder the agents may read',
      properties: ['openDirectory'],
    };
    const picked = mainWindow
      ? await dialog.showOpenDialog(mainWindow, options)
      : await dialog.showOpenDialog(options);
    return picked.canceled ? null : (picked.filePaths[0] ?? null);
  };

  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });

  void app.whenReady().then(() => {
    fleetscope = createApp({
      dataDir: app.getPath('userData'),
      surface: 'desktop',
      // Settings › OpenTelemetry traces: instrumented programs send here (port 4318 by default).
      listenForTraces: true,
      nativeBinding: electronSqliteBinding(),
      keyVault: createSafeStorageKeyVault(app.getPath('userData'), (message, error) =>
        fleetscope?.logger.warn(message, { err: error }),
      ),
      resourcesDir: app.isPackaged ? process.resourcesPath : join(app.getAppPath(), 'resources'),
    });
    if (fleetscope.movedAsideTo) {
      void dialog.showMessageBox({
        type: 'warning',
        message: 'The Fleetscope store was damaged',
        detail: `It was moved to ${fleetscope.movedAsideTo} and a new, empty store was started.`,
      });
    }
    registerIpcHandlers(fleetscope, ipcMain, rendererUrl());
    registerFolderPicker(ipcMain, rendererUrl(), pickFolder);
    installMenu({ importTranscript: () => void importTranscript() });
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
