import { contextBridge, ipcRenderer } from 'electron';
import { buildPreloadApi, PRELOAD_GLOBAL } from './api';

contextBridge.exposeInMainWorld(PRELOAD_GLOBAL, buildPreloadApi(ipcRenderer));
