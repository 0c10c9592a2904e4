import { runCli } from './main';

/** Process entry for the built CLI (out/main/cli.js). */
const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  write: (text) => process.stdout.write(text),
  env: process.env,
  interrupted,
});
process.exitCode = code;
if (code !== 0 || process.argv[2] !== 'serve') {
  // Let stdout drain, then leave even if a library left a handle open.
  setImmediate(() => process.exit(code));
}
