import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppError,
  createApp,
  defaultDataDir,
  readOnlyMessage,
  STORE_FILE,
  storeFaultOf,
  type FleetscopeApp,
} from '../app';
import type { CliIO } from './command';

/** The data folder: --data-dir, else FLEETSCOPE_DATA_DIR, else the OS default. */
export function dataDirFrom(dataDirOption: string | undefined, io: CliIO): string {
  return dataDirOption ?? defaultDataDir(io.env);
}

/** Whether a store exists in the folder (reading commands do not create one). */
export function hasStore(dataDir: string): boolean {
  return existsSync(join(dataDir, STORE_FILE));
}

/**
 * The app as a command sees it: the same composition root as the window and the web host
 * (recovery of orphaned sessions, ownership, settings, key checks), without the parts only a
 * long-lived surface needs (sample sessions, pings, watching the store).
 */
export function openApp(dataDir: string, io: CliIO): FleetscopeApp {
  const app = createApp({
    dataDir,
    surface: 'cli',
    env: io.env,
    seedSamples: false,
    pingIntervalMs: 0,
    watchStore: false,
  });
  for (const notice of app.info.notices ?? []) if (!app.readOnly) io.err(notice);
  return app;
}

/**
 * Opens the app, runs `use`, and closes the app whatever happens. A command that `writes` is
 * refused in a read-only data folder before it starts anything. SQLite's refusals that are the
 * machine's (a full disk, a lock held by another process) come out as sentences saying what to do.
 */
export async function withApp<T>(
  dataDir: string,
  io: CliIO,
  use: (app: FleetscopeApp) => Promise<T>,
  writes = false,
): Promise<T> {
  let app: FleetscopeApp;
  try {
    app = openApp(dataDir, io);
  } catch (error) {
    throw storeFaultOf(error, join(dataDir, STORE_FILE), null) ?? error;
  }
  try {
    if (writes && app.readOnly) throw new AppError('read-only', readOnlyMessage(dataDir));
    return await use(app);
  } catch (error) {
    throw storeFaultOf(error, join(dataDir, STORE_FILE), app.db) ?? error;
  } finally {
    await app.close();
  }
}
