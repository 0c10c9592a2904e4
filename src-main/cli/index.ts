import type { Writable } from 'node:stream';
import { runCli } from './main';

/**
 * Process entry for the built CLI (out/main/cli.js). Output is never cut short: the process
 * leaves only once stdout and stderr have handed everything to the reader (a pipe or a file), and
 * a reader that goes away early (`| head`) ends the command quietly instead of crashing it.
 */
let readerGone = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
    process.exit(process.exitCode ?? 0);
  });
}

/** Ctrl+C or SIGTERM (also when sent to the `fleetscope` / npx wrapper) cancels what is running. */
const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
  process.once('SIGHUP', () => resolve());
});

/** Resolves once everything written to `stream` so far has been taken by the OS. */
function drained(stream: Writable): Promise<void> {
  if (readerGone || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

const code = await runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  write: (text) => void process.stdout.write(text),
  env: process.env,
  interrupted,
  stdout: process.stdout,
  drained: () => drained(process.stdout),
});
process.exitCode = code;
if (code !== 0 || process.argv[2] !== 'serve') {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // Everything is written: leave even if a library left a handle open.
  process.exit(code);
}
