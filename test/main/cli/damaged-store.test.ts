import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src-main/app';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';

const FLEET = 'resources/fleets/scripted/research-fanout.json';
const SESSIONS = 6;

async function cli(...args: string[]) {
  const io = captureIo();
  const code = await runCli(args, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

interface Listed {
  id: string;
  title: string;
  status: string;
  messageCount: number;
}

async function listed(dataDir: string): Promise<Listed[]> {
  const { out } = await cli('sessions', '--json', '--limit', '500', '--data-dir', dataDir);
  return (JSON.parse(out) as { items: Listed[] }).items;
}

async function transcript(dataDir: string, id: string): Promise<string[]> {
  const { out } = await cli('show', id, '--json', '--data-dir', dataDir);
  const shown = JSON.parse(out) as { messages: Array<{ from: string; to: string; content: string }> };
  return shown.messages.map((message) => `${message.from}->${message.to}: ${message.content}`);
}

/** Overwrites page `page` (1-based) of the file with bytes no b-tree page has. */
function smashPage(file: string, page: number, pageSize: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
}

describe('a damaged store', () => {
  const temp = makeTempDir('fleetscope-damaged-');
  const original = join(temp.dir, 'original');
  let before: Listed[];
  const transcripts = new Map<string, string[]>();

  beforeAll(async () => {
    for (let n = 1; n <= SESSIONS; n++) {
      expect((await cli('run', FLEET, '--task', `Question ${n}`, '--data-dir', original)).code).toBe(0);
    }
    before = await listed(original);
    for (const session of before) transcripts.set(session.id, await transcript(original, session.id));
  }, 120_000);
  afterAll(() => temp.remove());

  /** A copy of the recorded data folder with its store file damaged by `damage`. */
  function damagedCopy(name: string, damage: (file: string) => void): string {
    const dir = join(temp.dir, name);
    mkdirSync(dir);
    copyFileSync(join(original, 'fleetscope.db'), join(dir, 'fleetscope.db'));
    damage(join(dir, 'fleetscope.db'));
    return dir;
  }

  /** The sessions the new store shows are exactly those recovered, each as it was. */
  async function expectRecoveredAsBefore(dataDir: string, recovered: number): Promise<void> {
    const after = await listed(dataDir);
    expect(after).toHaveLength(recovered);
    for (const session of after) {
      const was = before.find((old) => old.id === session.id);
      expect(was, session.id).toBeDefined();
      expect(session).toMatchObject({
        title: was!.title,
        status: was!.status,
        messageCount: was!.messageCount,
      });
      expect(await transcript(dataDir, session.id)).toEqual(transcripts.get(session.id));
    }
  }

  it('with corrupt pages in the middle: moves it aside, recovers the readable sessions and counts the rest', async () => {
    const dataDir = damagedCopy('pages', (file) => {
      const db = new Database(file, { readonly: true });
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      // Leaf pages of the event log, the middle one of them: some sessions' events live there.
      const pages = db
        .prepare("SELECT pageno FROM dbstat WHERE name = 'event_log' AND pagetype = 'leaf' ORDER BY pageno")
        .pluck()
        .all() as number[];
      db.close();
      expect(pages.length).toBeGreaterThan(2);
      smashPage(file, pages[Math.floor(pages.length / 2)]!, pageSize);
    });
    const first = await cli('sessions', '--data-dir', dataDir);
    expect(first.code).toBe(0);
    const notice = /Recovered (\d+) of (\d+) sessions from it; (\d+) could not be read\./.exec(first.err);
    expect(first.err).toMatch(
      /^The store was damaged; it was moved to .*fleetscope\.db\.corrupt-.* and a new one started\./,
    );
    expect(notice, first.err).not.toBeNull();
    const [recovered, total, lost] = notice!.slice(1).map(Number) as [number, number, number];
    expect(total).toBe(SESSIONS);
    expect(recovered + lost).toBe(SESSIONS);
    expect(lost).toBeGreaterThanOrEqual(1);
    expect(recovered).toBeGreaterThanOrEqual(1);
    await expectRecoveredAsBefore(dataDir, recovered);
    expect(readdirSync(dataDir).filter((name) => /\.corrupt-.*Z$/.test(name))).toHaveLength(1);
    // Told once: the next command opens the new store as it is.
    expect((await cli('sessions', '--data-dir', dataDir)).err).toBe('');
  }, 120_000);

  it('cut short: recovers what the remaining pages hold and says so in the app', async () => {
    const dataDir = damagedCopy('truncated', (file) => {
      const db = new Database(file, { readonly: true });
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.close();
      truncateSync(file, Math.floor(pages * 0.9) * pageSize);
    });
    const app = createApp({
      dataDir,
      surface: 'browser',
      env: {},
      seedSamples: false,
      pingIntervalMs: 0,
      watchStore: false,
    });
    const info = await app.call('app.info', {});
    const total = (await app.call('sessions.list', {})).total;
    await app.close();
    const notice = info.notices?.find((text) => text.startsWith('The store was damaged')) ?? '';
    // Sessions are recorded in order: the first ones' pages come before the cut.
    expect(total).toBeGreaterThan(0);
    expect(notice).toMatch(
      new RegExp(
        `Recovered ${total} of ${SESSIONS} sessions from it(; ${SESSIONS - total} could not be read)?\\.`,
      ),
    );
    await expectRecoveredAsBefore(dataDir, total);
  }, 120_000);

  it('of garbage: starts a new store and says nothing could be read from it', async () => {
    const dataDir = join(temp.dir, 'garbage');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'fleetscope.db'), randomBytes(64 * 1024));
    const first = await cli('sessions', '--data-dir', dataDir);
    expect(first.code).toBe(0);
    expect(first.err).toMatch(
      /moved to .*\.corrupt-.* and a new one started\. No session could be read from it \(.+\)\./,
    );
    expect(first.out).toContain('No sessions yet.');
  }, 60_000);
});
