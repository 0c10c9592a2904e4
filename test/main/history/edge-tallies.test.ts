import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BROADCAST } from '@shared/domain';
import type { HistoryStore, ImportedEvent } from '../../../src-main/history';
import { EdgeTallies, emptyTally, mergeTally, type EdgeTally } from '../../../src-main/history/edge-tallies';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

const AGENTS = ['ann', 'bob', 'cy'];

/** Messages from rotating senders, some broadcast, some handoffs, some dropped, one per seq. */
function* session(messages: number): Generator<ImportedEvent> {
  const started = {
    t: 0,
    agent: null,
    kind: 'session.started',
    payload: { title: 't', task: 't', fleetName: 'f', fleet: {}, parentSessionId: null, forkSeq: null },
  } as ImportedEvent;
  yield started;
  for (let i = 0; i < messages; i++) {
    const from = AGENTS[i % 3] as string;
    const to = i % 5 === 0 ? BROADCAST : (AGENTS[(i * 7 + 1) % 3] as string);
    const message = {
      id: `m${i}`,
      threadId: 'main',
      parentId: null,
      from,
      to,
      kind: i % 4 === 0 ? 'handoff' : 'text',
      content: `message ${i}`,
      meta: {},
      usage: { prompt: i % 3, completion: 1 },
      state: 'complete',
      t: i + 1,
    };
    const completed = {
      t: i + 1,
      agent: from,
      kind: 'message.completed',
      payload: { message },
    } as ImportedEvent;
    yield completed;
    if (i % 9 === 0) {
      const dropped = {
        t: i + 1,
        agent: from,
        kind: 'message.dropped',
        payload: { message: { ...message, id: `d${i}` }, reason: 'unknown recipient' },
      } as ImportedEvent;
      yield dropped;
    }
  }
}

/** The tally read the plain way: every row at or before `upTo` grouped at once. */
function bruteForce(store: HistoryStore, session: string, upTo: number): EdgeTally {
  const rows = store.db
    .prepare(
      `SELECT sender AS "from", receiver AS "to", CASE WHEN kind = 'handoff' THEN 'handoff' ELSE 'message' END AS kind,
         count(*) AS count, sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)) AS tokens, max(seq) AS lastSeq
       FROM messages WHERE session_id = ? AND seq <= ? AND dropped_reason IS NULL GROUP BY 1, 2, 3`,
    )
    .all(session, upTo) as Array<{
    from: string;
    to: string;
    kind: 'message' | 'handoff';
    count: number;
    tokens: number;
    lastSeq: number;
  }>;
  const tally = emptyTally();
  for (const row of rows) {
    const part = emptyTally();
    part.agents.set(row.from, {
      name: row.from,
      messages: row.count,
      tokens: row.tokens,
      lastSeq: row.lastSeq,
    });
    if (row.to !== BROADCAST) part.receivers.set(row.to, row.lastSeq);
    part.edges.set(JSON.stringify([row.from, row.to, row.kind]), {
      from: row.from,
      to: row.to,
      kind: row.kind,
      count: row.count,
      lastSeq: row.lastSeq,
    });
    mergeTally(tally, part);
  }
  const senders = store.db
    .prepare(
      'SELECT sender AS name, count(*) AS n FROM messages WHERE session_id = ? AND seq <= ? GROUP BY sender',
    )
    .all(session, upTo) as Array<{ name: string; n: number }>;
  for (const { name, n } of senders) tally.turns.set(name, n);
  return tally;
}

const sorted = (tally: EdgeTally) => ({
  agents: [...tally.agents.values()].sort((a, b) => a.name.localeCompare(b.name)),
  turns: [...tally.turns.entries()].sort(),
  receivers: [...tally.receivers.entries()].sort(),
  edges: [...tally.edges.entries()].sort(([a], [b]) => a.localeCompare(b)),
});

describe('edge tallies: graph totals at any seq from prefix snapshots', () => {
  let history: ReturnType<typeof openTempHistory>;
  let store: HistoryStore;
  beforeEach(() => {
    history = openTempHistory({ batchMs: 10_000 });
    store = history.store;
  });
  afterEach(() => history.cleanup());

  it('answers every seq exactly as a grouped read of all rows, across bucket boundaries', () => {
    const id = store.importSession(
      { title: 'big', task: 't', fleetName: 'f', source: 'test', createdAt: 0, tags: [] },
      session(120),
    );
    const tallies = new EdgeTallies(store.db, 4);
    const last = store.lastEventSeq(id);
    expect(last).toBeGreaterThan(120);
    // Asked out of order, so snapshots are built once and then read at every position.
    for (const seq of [last, 0, 1, 3, 4, 5, 7, 8, 9, 63, 64, 65, last - 1]) {
      expect(sorted(tallies.tallyAt(id, seq))).toEqual(sorted(bruteForce(store, id, seq)));
    }
    for (let seq = 0; seq <= last; seq += 1)
      expect(sorted(tallies.tallyAt(id, seq))).toEqual(sorted(bruteForce(store, id, seq)));
  });

  it('builds a session’s snapshots in slices when asked to, then answers as a grouped read', () => {
    const id = store.importSession(
      { title: 'sliced', task: 't', fleetName: 'f', source: 'test', createdAt: 0, tags: [] },
      session(100),
    );
    const tallies = new EdgeTallies(store.db, 4);
    const last = store.lastEventSeq(id);
    let slices = 1;
    while (!tallies.prepare(id, last, 3)) slices += 1;
    // About a hundred seqs in buckets of four, three buckets a slice.
    expect(slices).toBeGreaterThan(5);
    expect(tallies.prepare(id, last, 3)).toBe(true);
    expect(tallies.prepare(id, 10, 3)).toBe(true);
    for (const seq of [last, 50, 7, 0])
      expect(sorted(tallies.tallyAt(id, seq))).toEqual(sorted(bruteForce(store, id, seq)));
  });

  it('keeps up with a live session and never snapshots a message still streaming', () => {
    const script = new SessionScript();
    store.append(script.started('live', 'task'));
    for (let i = 0; i < 6; i++)
      for (const event of script.message(`a${i}`, 'ann', 'bob', ['x'], {
        usage: { prompt: 1, completion: 1 },
      }))
        store.append(event);
    store.flush();
    const tallies = new EdgeTallies(store.db, 4);
    const id = script.sessionId;
    const before = store.lastEventSeq(id);
    expect(sorted(tallies.tallyAt(id, before))).toEqual(sorted(bruteForce(store, id, before)));
    // A message that starts now and completes much later moves to its completion seq.
    store.append(script.messageStarted('late', 'bob', 'ann'));
    store.append(script.delta('late', 'y', 'bob'));
    store.flush();
    for (let i = 6; i < 12; i++)
      for (const event of script.message(`a${i}`, 'ann', 'bob', ['x'], {
        usage: { prompt: 1, completion: 1 },
      }))
        store.append(event);
    store.flush();
    const middle = store.lastEventSeq(id);
    expect(sorted(tallies.tallyAt(id, middle))).toEqual(sorted(bruteForce(store, id, middle)));
    store.append(script.completed('late', 'bob', 'ann', 'yz', { usage: { prompt: 2, completion: 2 } }));
    store.flush();
    const end = store.lastEventSeq(id);
    for (let seq = 0; seq <= end; seq++)
      expect(sorted(tallies.tallyAt(id, seq))).toEqual(sorted(bruteForce(store, id, seq)));
  });

  it('pages one agent’s turns around a seq with their numbers, and counts every sender', () => {
    const id = store.importSession(
      { title: 'turns', task: 't', fleetName: 'f', source: 'test', createdAt: 0, tags: [] },
      session(60),
    );
    const all = store.db
      .prepare('SELECT seq FROM messages WHERE session_id = ? AND sender = ? ORDER BY seq')
      .all(id, 'bob')
      .map((row) => (row as { seq: number }).seq);
    const index = store.turnIndex(id, { agent: 'bob', aroundSeq: all[10] as number, limit: 6 });
    expect(index.agent).toBe('bob');
    expect(index.seqs).toEqual(all.slice(index.firstIndex, index.firstIndex + 6));
    expect(index.seqs).toContain(all[10]);
    expect(index.firstIndex).toBe(8);
    const counts = Object.fromEntries(index.agents.map((agent) => [agent.name, agent.count]));
    expect(counts.bob).toBe(all.length);
    expect(counts.ann! + counts.bob! + counts.cy!).toBe(60 + 7);
    const start = store.turnIndex(id, { agent: 'bob', aroundSeq: 0, limit: 4 });
    expect(start).toMatchObject({ firstIndex: 0, seqs: all.slice(0, 4) });
    expect(store.turnIndex(id, { agent: 'nobody', aroundSeq: 0, limit: 4 }).seqs).toEqual([]);
  });
});
