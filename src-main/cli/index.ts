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

/**
 * Ctrl+C, SIGTERM or SIGHUP cancels what is running. Under `npx fleetscope` / `npm run` the
 * process a person signals is npm, which passes the signal to a shell that dies without passing it
 * on: so there, the parent going away counts as the same request (a plain `fleetscope` started in
 * the background keeps running when its shell exits).
 */
const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
  process.once('SIGHUP', () => resolve());
  if (process.env.npm_command === 'exec' || process.env.npm_command === 'run-script') {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      resolve();
    }, 200);
    watch.unref();
  }
});

/** Resolves once everything written to `stream` so far has been taken by the OS. */
function drained(stream: Writable): Promise<void> {
  if (readerGone || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** One line redrawn on a terminal's stderr: carriage return, the text, erase to the line's end. */
function status(text: string | null): void {
  process.stderr.write(text === null ? '\r\x1b[K' : `\r${text}\x1b[K`);
}

const code = await runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  write: (text) => void process.stdout.write(text),
  env: process.env,
  interrupted,
  rawOut: process.stdout,
  drained: () => drained(process.stdout),
  ...(process.stderr.isTTY ? { status } : {}),
});
process.exitCode = code;
if (code !== 0 || process.argv[2] !== 'serve') {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // Everything is written: leave even if a library left a handle open.
  process.exit(code);
}
