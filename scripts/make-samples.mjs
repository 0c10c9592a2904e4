// Regenerates resources/samples/: the sessions a new user finds on first launch. Runs every
// keyless example fleet through the real app (no API key, no network), exports each session as
// Fleetscope JSON, and adds two transcripts recorded by other frameworks (AutoGen, OpenAI Swarm).
// Run after changing the examples: node scripts/make-samples.mjs
import { createJiti } from 'jiti';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
const { createApp } = await jiti.import(`${root}src-main/app/index.ts`);
const { exportSession } = await jiti.import(`${root}src-main/interop/export/index.ts`);

const TASKS = {
  'example:scripted/debate': 'Does remote work make teams more productive?',
  'example:scripted/code-review': 'Write a function that returns the average of a list of numbers.',
  'example:scripted/support-swarm': 'I was charged twice for my subscription this month.',
  'example:scripted/research-fanout': 'What do people building multi-agent systems need from their tools?',
};
const FOREIGN = ['autogen-teamstate-2writers-samreen.json', 'openai-messages-swarm-handoffs-swarmjs.json'];

const out = join(root, 'resources', 'samples');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'fleetscope-samples-'));
const app = createApp({ dataDir: work, surface: 'cli', pingIntervalMs: 0, seedSamples: false });
const call = async (channel, input) => {
  const result = await app.dispatcher.dispatch(channel, input, { surface: 'cli' });
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.value;
};

for (const [example, task] of Object.entries(TASKS)) {
  const { sessionId } = await call('runs.start', { source: { example }, task });
  for (let tries = 0; tries < 600; tries++) {
    const { summary } = await call('sessions.get', { id: sessionId });
    if (summary.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const name = example.split('/').pop();
  await exportSession(app.store, sessionId, 'json', join(out, `${name}.json`));
  console.log(`sample: ${name}.json`);
}
for (const file of FOREIGN) {
  copyFileSync(join(root, 'test', 'fixtures', 'real', file), join(out, file));
  console.log(`sample: ${file}`);
}
await app.close();
rmSync(work, { recursive: true, force: true });
console.log(`${readdirSync(out).length} samples in resources/samples`);
