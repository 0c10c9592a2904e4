import { join } from 'node:path';
import type { AppInfo } from '@shared/contract';
import { openDatabase, type SqliteDatabase } from '../history/database';
import { SettingsStore } from '../history/settings-store';
import { Dispatcher, type Handlers } from './dispatcher';
import { EventHub } from './event-hub';
import { registerAppHandlers } from './handlers-app';
import { APP_NAME } from './data-dir';
import { version } from './version';

export { Dispatcher, type CallContext } from './dispatcher';
export { EventHub } from './event-hub';
export { AppError } from './errors';
export { defaultDataDir, APP_NAME } from './data-dir';

export interface AppOptions {
  dataDir: string;
  surface: AppInfo['surface'];
  /** better-sqlite3 binding for the current runtime (the desktop app ships its own). */
  nativeBinding?: string;
  /** Milliseconds between ping events; 0 disables them. */
  pingIntervalMs?: number;
}

export interface FleetscopeApp {
  readonly dispatcher: Dispatcher;
  readonly hub: EventHub;
  readonly info: AppInfo;
  readonly db: SqliteDatabase;
  /** Set when a corrupt store was moved aside at start; tell the user where it went. */
  readonly movedAsideTo: string | null;
  close(): void;
}

/** Composition root: builds the services and the handlers every surface shares. */
export function createApp(options: AppOptions): FleetscopeApp {
  const { db, movedAsideTo } = openDatabase(join(options.dataDir, 'fleetscope.db'), {
    nativeBinding: options.nativeBinding,
  });
  const hub = new EventHub();
  const info: AppInfo = {
    name: APP_NAME,
    version,
    dataDir: options.dataDir,
    surface: options.surface,
    platform: process.platform,
  };
  const settings = new SettingsStore(db);
  const handlers: Handlers = {
    ...registerAppHandlers({ info, settings, hub }),
  };
  const dispatcher = new Dispatcher(handlers);

  let n = 0;
  const pingInterval = options.pingIntervalMs ?? 5000;
  const timer = pingInterval > 0 ? setInterval(() => hub.emit('ping', { n: n++, at: Date.now() }), pingInterval) : null;
  timer?.unref?.();

  return {
    dispatcher,
    hub,
    info,
    db,
    movedAsideTo,
    close() {
      if (timer) clearInterval(timer);
      db.close();
    },
  };
}
