import type { FleetInput } from '../../../src-shared/domain';
import { openHistory, type ImportedEvent } from '../../../src-main/history';

/** Agents of the seeded long session: enough for a busy graph, few enough for readable edges. */
const AGENTS = Array.from({ length: 10 }, (_, i) => `agent${i}`);

/** A valid scripted fleet naming AGENTS, stored as the long session's snapshot. */
function benchFleet(): FleetInput {
  return {
    version: 1,
    name: 'bench',
    agents: AGENTS.map((name) => ({ name, type: 'scripted', role: 'worker', script: [{ content: 'ok' }] })),
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 10 },
  } as FleetInput;
}

function* longSession(messages: number): Generator<ImportedEvent> {
  const fleet = benchFleet();
  yield {
    t: 0,
    agent: null,
    kind: 'session.started',
    payload: {
      title: 'Bench 100k',
      task: 'bench',
      fleetName: 'bench',
      fleet,
      parentSessionId: null,
      forkSeq: null,
    },
  } as ImportedEvent;
  for (let i = 0; i < messages; i += 1) {
    const from = AGENTS[i % AGENTS.length] as string;
    const to = AGENTS[(i + 1) % AGENTS.length] as string;
    yield {
      t: 1 + i * 10,
      agent: from,
      kind: 'message.completed',
      payload: {
        message: {
          id: `m${i}`,
          threadId: `thread-${Math.floor(i / 200)}`,
          parentId: i % 200 === 0 ? null : `m${i - 1}`,
          from,
          to,
          kind: 'text',
          content: `Message ${i}: the quick brown fox jumps over the lazy dog while agents discuss plan step ${i % 97}.`,
          meta: {},
          usage: { prompt: 12, completion: 20 },
          state: 'complete',
          t: 1 + i * 10,
        },
      },
    } as ImportedEvent;
  }
  yield {
    t: 1 + messages * 10,
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: 'bench done' },
  } as ImportedEvent;
}

/**
 * Writes a data folder holding a `messages`-message session, an empty one and a `small`-message
 * one (same-run baselines) straight through the HistoryStore. `messages` 0 seeds only the empty
 * session (a store of its own, for the baseline of an empty session beside a big one).
 */
export function seedDataDir(
  dataDir: string,
  messages: number,
  small = 1_000,
): { longId: string; emptyId: string; smallId: string } {
  const history = openHistory(dataDir, { checkpointInterval: 500 });
  try {
    const meta = { task: 'bench', fleetName: 'bench', source: 'bench', createdAt: Date.now(), tags: [] };
    const emptyId = history.store.importSession({ ...meta, title: 'Bench empty' }, longSession(0));
    if (messages === 0) return { longId: emptyId, emptyId, smallId: emptyId };
    const smallId = history.store.importSession({ ...meta, title: `Bench ${small}` }, longSession(small));
    const longId = history.store.importSession(
      { ...meta, title: `Bench ${messages}` },
      longSession(messages),
    );
    return { longId, emptyId, smallId };
  } finally {
    history.close();
  }
}
