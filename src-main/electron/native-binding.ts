import { app } from 'electron';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * better-sqlite3 built for Electron's ABI lives apart from the Node build that tests use:
 * build/electron-native/ in development, resources/native/ when packaged. See the README.
 */
export function electronSqliteBinding(): string | undefined {
  const candidates = app.isPackaged
    ? [join(process.resourcesPath, 'native', 'better_sqlite3.node')]
    : [join(app.getAppPath(), 'build', 'electron-native', 'better_sqlite3.node')];
  return candidates.find((file) => existsSync(file));
}
