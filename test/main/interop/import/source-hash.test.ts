import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile, type ImportOptions } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import type { ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import type { HistoryStore } from '../../../../src-main/history';
import { makeTempDir } from '../../../helpers/temp-dir';
import { openTempHistory } from '../../../helpers/temp-store';
import { GeneratedSession } from '../export/sample-session';

const FIXTURES = join(__dirname, '../../../fixtures/real');
const temp = makeTempDir('fleetscope-import-hash-');
afterAll(() => temp.remove());

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The store without a writing thread for its imports (as a store with no file has none), still
 * recording hashes (`findImport`).
 */
function withoutThread(store: HistoryStore): SessionWriter {
  return {
    findImport: (hash) => store.findImport(hash),
    importSession: (meta, events) => store.importSession(meta, events),
    beginImport: (meta): ImportInProgress => {
      const { thread: _thread, ...inner } = store.beginImport(meta);
      return {
        sessionId: inner.sessionId,
        append: (events) => inner.append(events),
        finish: () => inner.finish(),
        abort: () => inner.abort(),
      };
    },
  };
}

const fixtureFiles = readdirSync(FIXTURES).filter((name) => name !== 'PROVENANCE.md' && name !== 'invalid');

describe("an import stores its file's content hash on every session it creates", () => {
  const ways: Array<[string, ImportOptions, boolean]> = [
    ['written on this thread (a small file)', {}, false],
    ['written on its writing thread (hashed while it is written)', { writeThreadFrom: 0 }, false],
    ['large enough for a writing thread, on a store that gives none', { writeThreadFrom: 0 }, true],
  ];

  it.each(ways)(
    '%s',
    async (_way, options, noThread) => {
      const exported = join(temp.dir, 'export.json');
      await exportSession(new GeneratedSession(300), 'generated-1', 'json', exported);
      const files = [exported, ...fixtureFiles.map((name) => join(FIXTURES, name))];
      for (const file of files) {
        const history = openTempHistory();
        try {
          const writer = noThread ? withoutThread(history.store) : history.store;
          const result = await importFile(file, writer, options);
          const hashes = result.sessionIds.map(
            (id) =>
              (
                history.store.db.prepare('SELECT source_hash AS hash FROM sessions WHERE id = ?').get(id) as {
                  hash: string | null;
                }
              ).hash,
          );
          expect(hashes).toEqual(result.sessionIds.map(() => sha256(file)));
          expect(history.store.findImport(sha256(file))?.sessionId).toBe(result.sessionIds.at(-1));
          // Only this import's sessions: nothing begun and dropped on the way is left.
          const count = history.store.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number };
          expect(count.n).toBe(result.sessionIds.length);
        } finally {
          history.cleanup();
        }
      }
    },
    60_000,
  ); // Thirteen imports, each on its own parsing thread: slow on a loaded machine.

  it('stores the hash a caller computed (while receiving the file) instead of reading it again', async () => {
    const file = join(temp.dir, 'given.json');
    await exportSession(new GeneratedSession(50), 'generated-1', 'json', file);
    for (const writeThreadFrom of [0, Number.MAX_SAFE_INTEGER]) {
      const history = openTempHistory();
      try {
        const given = 'a'.repeat(64);
        const result = await importFile(file, history.store, { writeThreadFrom, sourceHash: given });
        expect(history.store.findImport(given)?.sessionId).toBe(result.sessionId);
        expect(history.store.findImport(sha256(file))).toBeNull();
      } finally {
        history.cleanup();
      }
    }
  });

  it('is not stored while the import is being written: a running import is no earlier import', async () => {
    const file = join(temp.dir, 'running.json');
    await exportSession(new GeneratedSession(2_000), 'generated-1', 'json', file);
    const history = openTempHistory();
    try {
      const seen: Array<string | null> = [];
      const result = await importFile(file, history.store, {
        writeThreadFrom: 0,
        onProgress: (done, total) => {
          if (done < total) seen.push(history.store.findImport(sha256(file))?.sessionId ?? null);
        },
      });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((id) => id === null)).toBe(true);
      expect(history.store.findImport(sha256(file))?.sessionId).toBe(result.sessionId);
    } finally {
      history.cleanup();
    }
  });
});
