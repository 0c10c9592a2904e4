// Child process for the display-after-commit crash test: runs an LLM fleet through the
// programmatic entry (runFleet: composition root, run service, runtime, SQLite store) in the data
// folder argv[2] against the OpenAI-compatible stub at argv[3], and prints `shown <messageId>`
// for each completion its onEvent listener receives, i.e. each one a surface has shown. The parent
// SIGKILLs it at a random moment. Runs the TypeScript sources through jiti (no build step).
import { createJiti } from 'jiti';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
const { runFleet } = await jiti.import(`${root}src-main/api/index.ts`);

const [dataDir, baseUrl] = process.argv.slice(2);
const fleet = {
  version: 1,
  name: 'Crash pair',
  agents: ['ann', 'bob'].map((name) => ({
    name,
    type: 'llm',
    provider: { id: 'custom', baseUrl, model: 'stub-model' },
  })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 100_000 },
};
await runFleet({
  fleet,
  task: 'Talk until stopped',
  dataDir,
  env: {},
  onEvent: (event) => {
    if (event.kind === 'session.started') process.stdout.write(`ready ${event.sessionId}\n`);
    if (event.kind === 'message.completed') process.stdout.write(`shown ${event.payload.message.id}\n`);
  },
});
