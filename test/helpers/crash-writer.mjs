// Child process for the crash test: opens the history store in the folder given as argv[2] and
// streams one session's messages forever, printing `ack <messageId>` once a completion has been
// flushed. The parent kills it with SIGKILL at a random moment. Runs the TypeScript sources
// through jiti (no build step); prints `ready` once the store is open.
import { createJiti } from 'jiti';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jiti = createJiti(import.meta.url, { alias: { '@shared': `${root}src-shared` } });
const { openHistory } = await jiti.import(`${root}src-main/history/index.ts`);
const { fleetSchema } = await jiti.import(`${root}src-shared/domain/index.ts`);

const dir = process.argv[2];
const { store } = openHistory(dir, { batchMs: 5, checkpointInterval: 40, recover: false });
const fleet = fleetSchema.parse({
  version: 1,
  name: 'Crash fleet',
  agents: [
    { name: 'alice', type: 'scripted' },
    { name: 'bob', type: 'scripted' },
  ],
  team: { pattern: 'round-robin' },
});
const sessionId = randomUUID();
let seq = 0;
const started = Date.now();
const emit = (body, agent = null) =>
  store.append({ sessionId, seq: ++seq, t: Date.now() - started, agent, ...body });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

emit({
  kind: 'session.started',
  payload: {
    title: 'Crash run',
    task: 'Stream forever',
    fleetName: fleet.name,
    fleet,
    parentSessionId: null,
    forkSeq: null,
  },
});
process.stdout.write(`ready ${sessionId}\n`);
for (let n = 0; ; n += 1) {
  const id = `m${n}`;
  const from = n % 2 ? 'alice' : 'bob';
  const to = n % 2 ? 'bob' : 'alice';
  emit({ kind: 'agent.status', payload: { status: 'streaming' } }, from);
  emit(
    {
      kind: 'message.started',
      payload: { messageId: id, threadId: 'main', parentId: null, from, to, kind: 'text' },
    },
    from,
  );
  const chunks = [];
  for (let c = 0; c < 20; c += 1) {
    const text = `w${n}.${c} `;
    chunks.push(text);
    emit({ kind: 'message.delta', payload: { messageId: id, text } }, from);
    if (c % 4 === 0) await sleep(2);
  }
  const message = {
    id,
    threadId: 'main',
    parentId: null,
    from,
    to,
    kind: 'text',
    content: chunks.join(''),
    meta: {},
    state: 'complete',
    t: Date.now() - started,
    usage: { prompt: 3, completion: 20 },
  };
  emit({ kind: 'message.completed', payload: { message } }, from);
  store.flush();
  process.stdout.write(`ack ${id}\n`);
}
