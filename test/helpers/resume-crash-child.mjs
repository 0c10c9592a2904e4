// Child process for the resume test: runs a slow scripted round-robin fleet into the store in the
// folder given as argv[2] (the runtime and the store only, like a `fleetscope run`), printing
// `message <n>` as each message completes. The parent kills it with SIGKILL mid-run. Runs the
// TypeScript sources through jiti (no build step).
import { createJiti } from 'jiti';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
const { openHistory } = await jiti.import(`${root}src-main/history/index.ts`);
const { startRun } = await jiti.import(`${root}src-main/orchestrator/index.ts`);
const { fleetSchema } = await jiti.import(`${root}src-shared/domain/index.ts`);

const { store } = openHistory(process.argv[2], { batchMs: 5 });
const line = (n) => ({ content: `line ${n} ${'word '.repeat(30)}`, chunkSize: 8, delayMs: 15 });
const fleet = fleetSchema.parse({
  version: 1,
  name: 'Slow pair',
  agents: [
    { name: 'ann', type: 'scripted', script: [1, 2, 3, 4, 5, 6].map(line) },
    { name: 'bob', type: 'scripted', script: [1, 2, 3, 4, 5, 6].map((n) => line(n + 10)) },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 9 },
});
const handle = startRun({ fleet, task: 'Talk slowly', sink: store, env: {} });
let count = 0;
handle.onDidEvent((event) => {
  if (event.kind === 'message.completed') process.stdout.write(`message ${++count} ${handle.sessionId}\n`);
});
await handle.done;
