import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_NAME = 'Fleetscope';

/**
 * The OS's per-user app data folder, the same one Electron's `userData` uses, so every surface
 * shares one store: ~/.config/Fleetscope, ~/Library/Application Support/Fleetscope or
 * %APPDATA%\Fleetscope. FLEETSCOPE_DATA_DIR overrides it.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLEETSCOPE_DATA_DIR) return env.FLEETSCOPE_DATA_DIR;
  switch (process.platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
    default:
      return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
  }
}
