// Runs the CLI's real process entry (src-main/cli/index.ts: output draining, EPIPE, signals) from
// its TypeScript sources in a child process, through jiti (no build step), like bin/fleetscope does.
import { createJiti } from 'jiti';

const root = new URL('../../', import.meta.url).pathname;
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
await jiti.import(`${root}src-main/cli/index.ts`);
