#!/usr/bin/env node
// The `fleetscope` command. Runs the built CLI (out/main/cli.js), building it first when it is
// missing or older than the sources, so `npx fleetscope` works right after `npm install`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'out', 'main', 'cli.js');
const renderer = join(root, 'out', 'renderer', 'index.html');

function newestSourceTime() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const folder of ['src-main', 'src-shared', 'src-renderer']) {
    const dir = join(root, folder);
    if (existsSync(dir)) walk(dir);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(cli) || !existsSync(renderer)) return true;
  if (!existsSync(join(root, 'src-main'))) return false; // installed package: ships its build
  const built = Math.min(statSync(cli).mtimeMs, statSync(renderer).mtimeMs);
  return newestSourceTime() > built;
}

if (needsBuild()) {
  process.stderr.write('Building Fleetscope (first run or sources changed)…\n');
  const viteBin = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const result = spawnSync(process.execPath, [viteBin, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write('Fleetscope: the build failed; run `npm run build` to see why.\n');
    process.exit(1);
  }
}

await import(pathToFileURL(cli).href);
