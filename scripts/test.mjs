// `npm test`: every tier this machine can run, in order, stopping at the first failure.
// typecheck -> format -> lint -> import check -> vitest node + component -> build -> browser tier -> electron tier.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const steps = [
  ['typecheck (node)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.node.json']],
  ['typecheck (browser tests)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.e2e.json']],
  ['typecheck (web)', bin('vue-tsc'), ['--noEmit', '-p', 'tsconfig.web.json']],
  ['format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
  ['lint', bin('eslint'), ['.', '--max-warnings', '0']],
  ['import check (cycles, fences)', process.execPath, [join(root, 'scripts', 'check-imports.mjs')]],
  ['unit tests (node + component)', bin('vitest'), ['run', '--project', 'node', '--project', 'component']],
  ['build', bin('electron-vite'), ['build', '--logLevel', 'warn']],
  ['browser tests', bin('vitest'), ['run', '--project', 'browser']],
  ['electron tests', bin('vitest'), ['run', '--project', 'electron']],
];

const timings = [];
for (const [name, command, args] of steps) {
  console.log(`\n▶ ${name}`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  timings.push(`${name}: ${seconds}s`);
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status ?? result.signal}) after ${seconds}s`);
    process.exit(result.status ?? 1);
  }
}
console.log(`\n✔ all tiers passed\n  ${timings.join('\n  ')}`);
