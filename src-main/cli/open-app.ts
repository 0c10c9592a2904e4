import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, defaultDataDir, STORE_FILE, type FleetscopeApp } from '../app';
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
  if (app.movedAsideTo)
    io.err(`The store was damaged; it was moved to ${app.movedAsideTo} and a new one started.`);
  return app;
}

/** Opens the app, runs `use`, and closes the app whatever happens. */
export async function withApp<T>(
  dataDir: string,
  io: CliIO,
  use: (app: FleetscopeApp) => Promise<T>,
): Promise<T> {
  const app = openApp(dataDir, io);
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}
