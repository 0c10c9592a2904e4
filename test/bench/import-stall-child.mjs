// A live run writing to the store's main thread while the built app imports a file (or, for the
// baseline, the same live writing alone for the same time), and how long the main thread stalled.
// Usage: node import-stall-child.mjs <events.json> <dataDir> <import file | --alone ms>.
// Every LIVE_EVERY_MS (the live writer's group-commit window) it appends the next events of the live log (events.json: ImportedEvent[],
// numbered here) and commits them at once (store.flush, synchronous: it waits for the store's
// lock while the import's writing thread holds it). Prints {"ms", "commits",
// "longestCommitMs", "p99CommitMs", "longestLoopDelayMs"}: the longest commit is the longest the
// main thread was stalled by a live write; the loop delay is every other stall as well.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { openStore } from '../../out/main/api.js';

const LIVE_EVERY_MS = 16;
const EVENTS_PER_WRITE = 4;

const [eventsFile, dataDir, target, aloneMs] = process.argv.slice(2);
if (!eventsFile || !dataDir || !target) {
  console.error('usage: node import-stall-child.mjs <events.json> <dataDir> <import file | --alone ms>');
  process.exit(2);
}
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const store = openStore(dataDir, {});
const history = store.app.store;
const sessionId = randomUUID();
let next = 0;
const commits = [];

function writeLive() {
  for (let i = 0; i < EVENTS_PER_WRITE; i++) {
    const event = events[next % events.length];
    // Past the log's end the run goes on with its messages again (new ids), never a second start.
    const round = Math.floor(next / events.length);
    next += 1;
    if (round > 0 && event.kind.startsWith('session.')) continue;
    const renamed =
      round === 0 ? event : JSON.parse(JSON.stringify(event).replaceAll('"msg-', `"r${round}-msg-`));
    history.append({ ...renamed, sessionId, seq: next });
  }
  const started = performance.now();
  history.flush();
  commits.push(performance.now() - started);
}

const delay = monitorEventLoopDelay({ resolution: 1 });
const started = performance.now();
const timer = setInterval(writeLive, LIVE_EVERY_MS);
writeLive();
delay.enable();
if (target === '--alone') await new Promise((resolve) => setTimeout(resolve, Number(aloneMs)));
else await store.app.importFile(target);
const ms = performance.now() - started;
delay.disable();
clearInterval(timer);
await store.close();
commits.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    ms,
    commits: commits.length,
    longestCommitMs: commits.at(-1) ?? 0,
    p99CommitMs: commits[Math.floor(commits.length * 0.99)] ?? 0,
    longestLoopDelayMs: delay.max / 1e6,
  })}\n`,
);
