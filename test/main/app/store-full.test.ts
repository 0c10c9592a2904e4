import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { createApp } from '../../../src-main/app';
import { openHistory } from '../../../src-main/history';
import { fleet, llm } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { folderIn, mountTmpfs, type SmallMount } from '../../helpers/small-mount';
import { makeTempDir } from '../../helpers/temp-dir';

const root = join(import.meta.dirname, '../../..');
const child = join(root, 'test/helpers/cli-child.mjs');

/** Two agents taking turns for 400 messages of 16,000 characters each: far more than fits. */
const chatty = (baseUrl: string) =>
  fleet({
    agents: [llm('a', baseUrl), llm('b', baseUrl)],
    team: { pattern: 'round-robin', order: ['a', 'b'] },
    termination: { type: 'max-messages', max: 400 },
  });

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
  stub.respondWith(() => ({ type: 'text', content: 'word '.repeat(3_200), chunkSize: 4_000 }));
});
afterAll(() => stub.close());

/** Messages of a session as the store file holds them, read by a connection of its own. */
function storedMessages(file: string, sessionId: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const row = db.prepare('SELECT message_count AS n FROM sessions WHERE id = ?').get(sessionId) as
      { n: number } | undefined;
    return row?.n ?? 0;
  } finally {
    db.close();
  }
}

describe('a store that cannot grow (size-limited database)', () => {
  it('stops the run at once, keeps what was committed, and says how much space it needs', async () => {
    const temp = makeTempDir('fleetscope-full-');
    const app = createApp({
      dataDir: temp.dir,
      surface: 'browser',
      env: {},
      seedSamples: false,
      pingIntervalMs: 0,
      watchStore: false,
    });
    const pages = app.db.pragma('page_count', { simple: true }) as number;
    app.db.pragma(`max_page_count = ${pages + 40}`);
    const before = stub.chatRequests().length;
    const handle = app.runs.launch({
      source: { parsed: chatty(stub.baseUrl) },
      task: 'Talk',
      maxMessages: null,
    });
    const shown: RunEvent[] = [];
    handle.onDidEvent((event) => shown.push(event));
    const summary = await handle.done;
    const info = await app.call('app.info', {});
    await app.close();

    expect(summary.status).toBe('failed');
    expect(summary.detail).toMatch(
      /cannot write: the store reached its size limit of [\d.]+ kB \(max_page_count\)/,
    );
    expect(summary.detail).toMatch(/needs at least 16\.0 MB free/);
    expect(info.notices?.some((notice) => notice.includes('reached its size limit'))).toBe(true);

    const reopened = openHistory(temp.dir, { recover: false });
    const stored = reopened.store.getSession(handle.sessionId)?.summary;
    const kept = reopened.store.pageMessages(handle.sessionId, { limit: 500 }).items;
    reopened.close();
    temp.remove();
    // What the run showed (only what was durable) is exactly what the store kept.
    const shownMessages = shown.filter((event) => event.kind === 'message.completed').length;
    expect(stored?.messageCount).toBeGreaterThan(0);
    expect(kept.filter((message) => message.state === 'complete')).toHaveLength(shownMessages);
    // Stopped at once: at most the request whose reply could not be written, and one in flight.
    const requests = stub.chatRequests().length - before;
    expect(requests).toBeLessThanOrEqual(shownMessages + 2);
    expect(requests).toBeLessThan(400);
  }, 60_000);
});

const small = mountTmpfs('3m');
const canMount = 'mount' in small;
if (!canMount) console.log(`SKIPPED full-disk test on a real filesystem: ${small.reason}`);

describe('fleetscope run on a 3 MB filesystem', () => {
  let mount: SmallMount;
  beforeAll(() => {
    if ('mount' in small) mount = small.mount;
  });
  afterAll(() => mount?.unmount());

  it.skipIf(!canMount)(
    'stops at the first write that does not fit, says the disk is full and how much it needs, and counts only what was kept',
    async () => {
      const dataDir = folderIn(mount, 'data');
      const temp = makeTempDir('fleetscope-full-fleet-');
      const fleetFile = join(temp.dir, 'fleet.json');
      writeFileSync(fleetFile, JSON.stringify(chatty(stub.baseUrl)));
      const before = stub.chatRequests().length;
      const processChild = spawn(
        process.execPath,
        [child, 'run', fleetFile, '--task', 'Talk', '--data-dir', dataDir],
        { cwd: root, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      processChild.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      processChild.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => processChild.on('exit', resolve));
      temp.remove();

      expect(code).toBe(1);
      const summary = stdout.trim().split('\n').at(-1) ?? '';
      expect(summary).toMatch(/failed: Ended by an error/);
      expect(summary).toContain(`the disk holding ${dataDir} is full`);
      expect(summary).toMatch(/It needs at least 16\.0 MB free to go on/);
      const sessionId = /Session (\S+) failed/.exec(summary)?.[1] as string;
      const counted = Number(/ (\d+) messages, /.exec(summary)?.[1]);
      const kept = storedMessages(join(dataDir, 'fleetscope.db'), sessionId);
      expect(counted).toBe(kept);
      const requests = stub.chatRequests().length - before;
      expect(requests).toBeLessThanOrEqual(kept + 2);
      expect(requests).toBeLessThan(400);
      expect(stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace, a sentence
    },
    120_000,
  );
});
