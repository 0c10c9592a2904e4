// Tells whether a runnable Electron binary is installed, without triggering Electron's
// download-on-first-use (requiring the `electron` package would try to fetch the binary).
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** @returns {{ available: true, path: string } | { available: false, reason: string }} */
export function electronStatus() {
  let packageDir;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return { available: false, reason: 'the electron package is not installed' };
  }
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override
    ? join(override, relative ?? 'electron')
    : relative
      ? join(packageDir, 'dist', relative)
      : null;
  if (binary && existsSync(binary)) return { available: true, path: binary };
  return { available: false, reason: 'the Electron binary is not downloaded' };
}

export const UNAVAILABLE_LINE =
  'Fleetscope: the desktop shell is unavailable here (no Electron binary); `npm run serve` runs the same app in a browser.';
