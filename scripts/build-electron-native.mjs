// Builds better-sqlite3 for Electron's ABI into build/electron-native/better_sqlite3.node, leaving
// the Node build in node_modules (which the tests use) untouched. Needs network access to fetch
// Electron's headers: run it on an online machine, before `npm run package` or `npm start`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronVersion = JSON.parse(
  readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8'),
).version;
const work = mkdtempSync(join(tmpdir(), 'fleetscope-native-'));
const source = join(work, 'better-sqlite3');
cpSync(join(root, 'node_modules/better-sqlite3'), source, { recursive: true });
rmSync(join(source, 'build'), { recursive: true, force: true });

const nodeGyp = join(root, 'node_modules/node-gyp/bin/node-gyp.js');
console.log(`Building better-sqlite3 for Electron ${electronVersion} in ${source}…`);
const result = spawnSync(
  process.execPath,
  [
    nodeGyp,
    'rebuild',
    '--release',
    `--target=${electronVersion}`,
    '--runtime=electron',
    '--dist-url=https://electronjs.org/headers',
  ],
  { cwd: source, stdio: 'inherit' },
);
if (result.status !== 0) {
  console.error('The Electron build of better-sqlite3 failed (it needs network access for the headers).');
  process.exit(1);
}
const target = join(root, 'build/electron-native');
mkdirSync(target, { recursive: true });
copyFileSync(join(source, 'build/Release/better_sqlite3.node'), join(target, 'better_sqlite3.node'));
rmSync(work, { recursive: true, force: true });
console.log(`Wrote ${join(target, 'better_sqlite3.node')}`);
