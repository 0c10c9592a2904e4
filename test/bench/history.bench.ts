import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src-shared/domain';
import { openHistory, type ImportedEvent } from '../../src-main/history';
import { makeTempDir } from '../helpers/temp-dir';

/**
 * History store figures (DESIGN.md section 6): printed, never asserted on time. Each figure sits
 * next to a baseline measured in the same run.
 */
const MESSAGES = 100_000;

function message(i: number): Message {
  return {
    id: `m${i}`,
    threadId: `thread-${i % 50}`,
    parentId: i > 0 ? `m${i - 1}` : null,
    from: i % 2 ? 'alice' : 'bob',
    to: i % 2 ? 'bob' : 'alice',
    kind: 'text',
    content: `Message ${i}: the quick brown fox jumps over the lazy dog while agents discuss plan step ${i % 97}.`,
    meta: {},
    usage: { prompt: 12, completion: 20 },
    state: 'complete',
    t: i * 10,
  };
}

function* importedEvents(): Generator<ImportedEvent> {
  for (let i = 0; i < MESSAGES; i += 1) {
    yield {
      t: i * 10,
      agent: i % 2 ? 'alice' : 'bob',
      kind: 'message.completed',
      payload: { message: message(i) },
    };
  }
}

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

describe('history store benchmark', () => {
  const temp = makeTempDir('fleetscope-bench-');
  afterAll(() => temp.remove());

  it(`imports, opens and seeks a ${MESSAGES}-message session`, () => {
    // Baseline: the same message rows, raw inserts in one transaction, no events/FTS/counters.
    const raw = new Database(join(temp.dir, 'raw.db'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec(`CREATE TABLE messages (session_id TEXT, id TEXT, seq INTEGER, t REAL, thread_id TEXT, parent_id TEXT,
      sender TEXT, receiver TEXT, kind TEXT, content TEXT, meta TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, state TEXT)`);
    const insert = raw.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    let start = process.hrtime.bigint();
    raw.transaction(() => {
      for (let i = 0; i < MESSAGES; i += 1) {
        const m = message(i);
        insert.run(
          's',
          m.id,
          i + 1,
          m.t,
          m.threadId,
          m.parentId,
          m.from,
          m.to,
          m.kind,
          m.content,
          JSON.stringify(m.meta),
          12,
          20,
          'complete',
        );
      }
    })();
    const rawMs = ms(start);
    raw.close();

    const history = openHistory(join(temp.dir, 'store'), { checkpointInterval: 500 });
    start = process.hrtime.bigint();
    const id = history.store.importSession(
      { title: 'Bench', task: 'bench', fleetName: 'bench', source: 'bench', createdAt: Date.now(), tags: [] },
      importedEvents(),
    );
    const importMs = ms(start);
    expect(history.store.getSession(id)?.summary.messageCount).toBe(MESSAGES);

    start = process.hrtime.bigint();
    const session = history.store.getSession(id);
    const firstPage = history.store.pageMessages(id, { limit: 100 });
    const lastPage = history.store.pageMessages(id, { limit: 100, from: 'end' });
    const openMs = ms(start);
    expect(session && firstPage.items.length === 100 && lastPage.items.length === 100).toBe(true);

    const seeks: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const seq = 1 + Math.floor(Math.random() * MESSAGES);
      start = process.hrtime.bigint();
      const view = history.store.seek(id, seq);
      seeks.push(ms(start));
      expect(view.seq).toBe(seq);
    }
    seeks.sort((a, b) => a - b);
    start = process.hrtime.bigint();
    const search = history.store.listSessions({ search: 'lazy dog' });
    const searchMs = ms(start);
    expect(search.total).toBe(1);
    history.close();

    const figures = {
      'raw better-sqlite3 inserts (baseline)': `${rawMs.toFixed(0)} ms (${((MESSAGES / rawMs) * 1000).toFixed(0)} rows/s)`,
      'importSession (events + messages + FTS + checkpoints)': `${importMs.toFixed(0)} ms (${((MESSAGES / importMs) * 1000).toFixed(0)} messages/s)`,
      'import / raw ratio': `${(importMs / rawMs).toFixed(2)}x`,
      'open session: summary + first and last page of 100': `${openMs.toFixed(1)} ms`,
      'seek via checkpoints (200 random points) p50': `${percentile(seeks, 0.5).toFixed(2)} ms`,
      'seek p95': `${percentile(seeks, 0.95).toFixed(2)} ms`,
      'full-text search across the store': `${searchMs.toFixed(1)} ms`,
    };
    console.log(
      `\nHistory store, ${MESSAGES} messages\n${Object.entries(figures)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}`,
    );
  });
});
