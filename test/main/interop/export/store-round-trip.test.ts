import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHistory, type OpenedHistory } from '../../../../src-main/history';
import { exportSession } from '../../../../src-main/interop/export';
import { importFile } from '../../../../src-main/interop/import';
import { sampleEvents } from './sample-session';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));
let dir: string;
let history: OpenedHistory;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-store-rt-'));
  history = openHistory(dir);
});
afterAll(() => {
  history.close();
  rmSync(dir, { recursive: true, force: true });
});

function events(id: string) {
  return [...history.store.iterateEvents(id)].map(({ sessionId: _sessionId, ...rest }) => rest);
}

const SUMMARY_FIELDS = [
  'title',
  'task',
  'fleetName',
  'status',
  'stopReason',
  'createdAt',
  'messageCount',
  'tokens',
  'tags',
] as const;

describe('import and export against the SQLite history store', () => {
  it.each([
    ['autogen-teamstate-3agents-tools-boano.json', 16, 11964],
    ['openai-messages-swarm-handoffs-swarmjs.json', 14, 0],
  ])('%s imports, exports to JSON and imports back identical', async (file, messages, tokens) => {
    const first = await importFile(REAL + file, history.store);
    const original = history.store.getSession(first.sessionId)?.summary;
    expect(original).toMatchObject({ messageCount: messages, tokens, status: 'completed', readOnly: true });
    const path = join(dir, `${file}.json`);
    await exportSession(history.store, first.sessionId, 'json', path);
    const second = await importFile(path, history.store);
    expect(second.messageCount).toBe(messages);
    expect(events(second.sessionId)).toEqual(events(first.sessionId));
    const copy = history.store.getSession(second.sessionId)?.summary;
    for (const field of SUMMARY_FIELDS) expect(copy?.[field], field).toEqual(original?.[field]);
  });

  it('a bad file leaves the store without a new session', async () => {
    const before = history.store.listSessions({ limit: 1000 }).total;
    await expect(
      importFile(join(REAL, 'invalid/autogen-teamstate-python-repr-essaywriter.json.txt'), history.store),
    ).rejects.toMatchObject({
      code: 'invalid-input',
    });
    expect(history.store.listSessions({ limit: 1000 }).total).toBe(before);
  });

  it('a runtime-shaped session with tools, handoffs and errors round-trips', async () => {
    const id = history.store.importSession(
      {
        title: 'Generated',
        task: 'Review the patch',
        fleetName: 'review-team',
        source: 'test',
        createdAt: Date.UTC(2025, 1, 1),
        tags: ['x'],
      },
      sampleEvents(500),
    );
    const path = join(dir, 'generated.json');
    await exportSession(history.store, id, 'json', path);
    const back = await importFile(path, history.store);
    expect(events(back.sessionId)).toEqual(events(id));
  });
});
