// A live run writing to the store's main thread while the built app imports a file (or, for the
// baseline, the same live writing alone for the same time), and how long the main thread stalled.
// Usage: node import-stall-child.mjs <events.json> <dataDir> <flush | group> <import file | --alone ms>.
// Every LIVE_EVERY_MS (the live writer's group-commit window) it appends the next EVENTS_PER_WRITE
// events of the live log (events.json: ImportedEvent[], numbered here), and:
//   - flush: commits them at once (store.flush, synchronous: it waits for the store's lock while
//     the import's writing thread holds it), as a read of a live session or a session's start or
//     end does; each commit's milliseconds are the main thread's stall for it;
//   - group: leaves them to the store's group commit, as a run does (its timer commits them; it
//     does not block while the writing thread holds the lock); the main thread's stalls are the
//     event loop's delays, and each write's milliseconds until durable (store.whenDurable).
// Prints {"ms", "writes", "longestCommitMs", "p99CommitMs", "longestLoopDelayMs",
// "p99LoopDelayMs", "longestDurableMs", "p99DurableMs"} (durable figures 0 in flush mode); the
// commit figures are the main thread's time in each of the live writer's commits.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { openStore } from '../../out/main/api.js';

const LIVE_EVERY_MS = 16;
const EVENTS_PER_WRITE = 4;

const [eventsFile, dataDir, mode, target, aloneMs] = process.argv.slice(2);
if (!eventsFile || !dataDir || !['flush', 'group'].includes(mode) || !target) {
  console.error(
    'usage: node import-stall-child.mjs <events.json> <dataDir> <flush | group> <import file | --alone ms>',
  );
  process.exit(2);
}
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const store = openStore(dataDir, {});
const history = store.app.store;
const sessionId = randomUUID();
let next = 0;
const commits = [];
const durable = [];

// Each live commit's time on the main thread, however it was made (flush, or the group commit's
// timer): the store's live writer (a private field of the built store, read here to time it,
// nothing else) has its commit wrapped.
const writer = history.writer;
const commitOnce = writer.commit.bind(writer);
writer.commit = () => {
  const began = performance.now();
  try {
    commitOnce();
  } finally {
    commits.push(performance.now() - began);
  }
};

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
  if (mode === 'flush') {
    history.flush();
  } else {
    history.whenDurable(() => durable.push(performance.now() - started));
  }
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
const p99 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0;
process.stdout.write(
  `${JSON.stringify({
    ms,
    writes: mode === 'flush' ? commits.length : durable.length,
    longestCommitMs: Math.max(0, ...commits),
    p99CommitMs: p99(commits),
    longestLoopDelayMs: delay.max / 1e6,
    p99LoopDelayMs: delay.percentile(99) / 1e6,
    longestDurableMs: Math.max(0, ...durable),
    p99DurableMs: p99(durable),
  })}\n`,
);
