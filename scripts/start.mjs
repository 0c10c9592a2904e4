// `npm start`: the desktop app when an Electron binary is installed; otherwise says so and runs
// the same app in the browser surface.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronStatus, UNAVAILABLE_LINE } from './electron-status.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const status = electronStatus();
const [command, args] = status.available
  ? [
      join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
      ['preview', ...process.argv.slice(2)],
    ]
  : // --open: the page opens in the browser where there is a display; the URL is printed either way.
    [join(root, 'bin', 'fleetscope.mjs'), ['serve', '--open', ...process.argv.slice(2)]];
if (!status.available) console.log(`${UNAVAILABLE_LINE}\nStarting the browser surface instead…`);

const child = spawn(process.execPath, [command, ...args], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
