import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import type { ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import { MAX_BATCH_EVENTS } from '../../../../src-main/interop/import/write-pacing';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';
import { openTempHistory } from '../../../helpers/temp-store';
import { sampleEvents } from '../export/sample-session';

const MESSAGES = 5_000;
const temp = makeTempDir('fleetscope-import-batches-');
let exported: string;

beforeAll(async () => {
  const source = new MemorySessions();
  const id = source.addSession({ title: 'Batched' }, [...sampleEvents(MESSAGES)]);
  exported = join(temp.dir, 'export.json');
  await exportSession(source, id, 'json', exported);
});
afterAll(() => temp.remove());

/** Wraps the store's batch writer so a test sees (and can break) every append. */
function observed(
  store: SessionWriter,
  log: string[],
  failOnAppend?: number,
): SessionWriter & { sizes: number[] } {
  const sizes: number[] = [];
  return {
    sizes,
    importSession: (meta, events) => store.importSession(meta, events),
    beginImport: (meta): ImportInProgress => {
      const inner = store.beginImport(meta);
      log.push(`begin ${meta.title}`);
      return {
        sessionId: inner.sessionId,
        append: (events) => {
          log.push('append');
          sizes.push(events.length);
          if (sizes.length === failOnAppend) throw new Error('disk full (simulated)');
          inner.append(events);
        },
        finish: () => {
          log.push(`finish ${meta.title}`);
          return inner.finish();
        },
        abort: () => inner.abort(),
      };
    },
  };
}

describe('import writes batches on the main thread and keeps the event loop turning', () => {
  it('writes a 5,000-message export in bounded batches that equal a one-transaction import', async () => {
    const history = openTempHistory();
    try {
      const log: string[] = [];
      const writer = observed(history.store, log);
      const announced: string[][] = [];
      history.store.onDidChange((change) => {
        if (change.type === 'sessions-changed') announced.push(change.sessionIds);
      });
      let ticking = true;
      const tick = () => {
        log.push('tick');
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const result = await importFile(exported, writer).finally(() => {
        ticking = false;
      });

      expect(result).toMatchObject({ format: 'fleetscope-json', messageCount: MESSAGES });
      expect(writer.sizes.length).toBeGreaterThan(5);
      expect(Math.max(...writer.sizes)).toBeLessThanOrEqual(MAX_BATCH_EVENTS);
      // Between any two batches the event loop ran other work.
      const appends = log.flatMap((entry, i) => (entry === 'append' ? [i] : []));
      expect(appends.length).toBe(writer.sizes.length);
      expect(appends.slice(1).every((at, i) => log.slice((appends[i] ?? 0) + 1, at).includes('tick'))).toBe(
        true,
      );
      // Announced once, complete.
      expect(announced).toEqual([[result.sessionId]]);

      const direct = history.store.importSession(
        { title: 'Batched', task: 'x', fleetName: 'x', source: 'fleetscope-json', createdAt: 0, tags: [] },
        sampleEvents(MESSAGES),
      );
      const summary = (id: string) => {
        const { status, stopReason, messageCount, tokens, readOnly } =
          history.store.getSession(id)?.summary ?? {};
        return { status, stopReason, messageCount, tokens, readOnly };
      };
      expect(summary(result.sessionId)).toEqual(summary(direct));
      expect(history.store.countEvents(result.sessionId)).toBe(history.store.countEvents(direct));
      const lastPage = (id: string) =>
        history.store
          .pageMessages(id, { from: 'end', limit: 50 })
          .items.map(({ id: messageId, from, to, kind, content, state, seq }) => ({
            messageId,
            from,
            to,
            kind,
            content,
            state,
            seq,
          }));
      expect(lastPage(result.sessionId)).toEqual(lastPage(direct));
      const seq = history.store.countEvents(direct);
      expect(history.store.seek(result.sessionId, seq).messages).toEqual(
        history.store.seek(direct, seq).messages,
      );
    } finally {
      history.cleanup();
    }
  });

  it('runs concurrent imports one after the other, never two parsing threads at once', async () => {
    const log: string[] = [];
    const writer = observed(new MemorySessions(), log);
    const small = ['second', 'third'].map((name) => {
      const path = join(temp.dir, `${name}.json`);
      writeFileSync(path, JSON.stringify({ name, messages: [{ role: 'user', content: name }] }));
      return path;
    });
    // The first takes many batches to write: without turns, the small ones would begin meanwhile.
    const results = await Promise.all([exported, ...small].map((path) => importFile(path, writer)));
    expect(results.map((result) => result.messageCount)).toEqual([MESSAGES, 1, 1]);
    const turns = log.filter((entry) => entry !== 'append');
    expect(turns).toEqual([
      'begin Batched',
      'finish Batched',
      'begin second',
      'finish second',
      'begin third',
      'finish third',
    ]);
  });

  it('deletes what it wrote when a later batch fails to write, and says why', async () => {
    const history = openTempHistory();
    try {
      const writer = observed(history.store, [], 3);
      const error = await importFile(exported, writer).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe('disk full (simulated)');
      expect(writer.sizes.length).toBe(3);
      const count = (table: string) =>
        (history.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect([count('sessions'), count('events'), count('messages'), count('checkpoints')]).toEqual([
        0, 0, 0, 0,
      ]);
      expect(history.store.listSessions({ search: 'patch' }).total).toBe(0);
    } finally {
      history.cleanup();
    }
  });
});
