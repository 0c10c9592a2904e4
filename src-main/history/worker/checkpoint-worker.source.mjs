// Starts the store's checkpointing thread from the TypeScript sources (tests, and the CLI run from
// source through jiti). The built app loads the bundled checkpoint-worker instead (see
// checkpoint-thread.ts).
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { '@shared': here('../../../src-shared') } });
await jiti.import(here('./checkpoint-worker.ts'));
