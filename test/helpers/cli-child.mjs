// Runs the CLI from its TypeScript sources in a child process (through jiti, no build step),
// with the real process stdout/stderr and Ctrl+C handling, like bin/fleetscope does.
import { createJiti } from 'jiti';

const root = new URL('../../', import.meta.url).pathname;
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
const { runCli } = await jiti.import(`${root}src-main/cli/main.ts`);

const interrupted = new Promise((resolve) => process.once('SIGINT', () => resolve()));
const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  write: (text) => process.stdout.write(text),
  env: process.env,
  interrupted,
});
process.exitCode = code;
setImmediate(() => process.exit(code));
