import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, createApp } from '../../../src-main/app';
import { runCli } from '../../../src-main/cli/main';
import { MIGRATIONS, openDatabase } from '../../../src-main/history';
import { captureIo } from '../../helpers/cli-io';
import { folderIn, mountTmpfs, type SmallMount } from '../../helpers/small-mount';
import { makeTempDir } from '../../helpers/temp-dir';

const root = join(import.meta.dirname, '../../..');
const child = join(root, 'test/helpers/cli-child.mjs');
const FLEET = 'resources/fleets/scripted/research-fanout.json';

async function cli(...args: string[]) {
  const io = captureIo();
  const code = await runCli(args, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

/** Runs the CLI in a child process (its files close when it exits, so the mount can turn read-only). */
function cliChild(...args: string[]): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [child, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** Records two scripted sessions in `dataDir`; returns their ids. */
function recordTwo(dataDir: string): string[] {
  for (const task of ['First question', 'Second question']) {
    const { code, err } = cliChild('run', FLEET, '--task', task, '--data-dir', dataDir);
    expect(err).toBe('');
    expect(code).toBe(0);
  }
  const listed = cliChild('sessions', '--json', '--data-dir', dataDir);
  return (JSON.parse(listed.out) as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

/**
 * Changes a session's title and dies without closing the store, so its -wal and -shm files stay
 * (a store another machine was writing to when the share was taken read-only).
 */
function renameAndDie(file: string, sessionId: string, title: string): void {
  const script = `const D = require(${JSON.stringify(join(root, 'node_modules/better-sqlite3'))});
    const db = new D(${JSON.stringify(file)}); db.pragma('wal_autocheckpoint = 0');
    db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(${JSON.stringify(title)}, ${JSON.stringify(sessionId)});
    process.kill(process.pid, 'SIGKILL');`;
  spawnSync(process.execPath, ['-e', script]);
}

/** Every writing command is refused with the same sentence and exit 1. */
async function expectWritesRefused(dataDir: string, ids: string[]): Promise<void> {
  const other = makeTempDir('fleetscope-ro-import-');
  const exported = join(other.dir, 'session.json');
  expect((await cli('export', ids[0]!, '--format', 'json', '-o', exported, '--data-dir', dataDir)).code).toBe(
    0,
  );
  for (const args of [
    ['run', FLEET, '--task', 'More'],
    ['import', exported],
    ['continue', ids[0]!, '--task', 'Go on'],
    ['fork', ids[0]!, '--at', '1', '--no-run'],
  ]) {
    const refused = await cli(...args, '--data-dir', dataDir);
    expect(refused.code, args[0]).toBe(1);
    expect(refused.err, args[0]).toContain(`The data folder ${dataDir} is read-only`);
  }
  other.remove();
}

const small = mountTmpfs('16m');
const canMount = 'mount' in small;
if (!canMount) console.log(`SKIPPED read-only mount tests: ${small.reason}`);

describe('a data folder on a read-only mount', () => {
  let mount: SmallMount;
  beforeAll(() => {
    if ('mount' in small) mount = small.mount;
  });
  afterAll(() => mount?.unmount());

  it.skipIf(!canMount)(
    'browses, searches, shows, compares and exports, refuses every write with a clear sentence, and writes nothing',
    async () => {
      const dataDir = folderIn(mount, 'closed-cleanly');
      const ids = recordTwo(dataDir);
      expect(existsSync(join(dataDir, 'fleetscope.db-wal'))).toBe(false);
      mount.makeReadOnly();
      const files = readdirSync(dataDir).sort();

      const listed = await cli('sessions', '--data-dir', dataDir);
      expect(listed).toMatchObject({ code: 0, err: '' });
      expect(listed.out).toContain('Showing 2 of 2 sessions.');
      const found = await cli('sessions', '--search', 'Second', '--json', '--data-dir', dataDir);
      expect(found.code).toBe(0);
      expect((JSON.parse(found.out) as { total: number }).total).toBe(1);
      const shown = await cli('show', ids[0]!, '--data-dir', dataDir);
      expect(shown.code).toBe(0);
      expect(shown.out).toContain('editor → user (result)');
      const out = makeTempDir('fleetscope-ro-export-');
      const compared = await cli(
        'compare',
        ids[0]!,
        ids[1]!,
        '-o',
        join(out.dir, 'c.md'),
        '--data-dir',
        dataDir,
      );
      expect(compared.code).toBe(0);
      expect(readFileSync(join(out.dir, 'c.md'), 'utf8')).toContain('editor → user (result)');
      const exported = await cli(
        'export',
        ids[1]!,
        '--format',
        'md',
        '-o',
        join(out.dir, 's.md'),
        '--data-dir',
        dataDir,
      );
      expect(exported.code).toBe(0);
      // Newest first: ids[1] is the first one recorded.
      expect(readFileSync(join(out.dir, 's.md'), 'utf8')).toContain('First question');
      out.remove();

      await expectWritesRefused(dataDir, ids);

      // The app (window, serve): a flag for the renderer, writing channels refused, reading ones work.
      const app = createApp({ dataDir, surface: 'browser', env: {}, pingIntervalMs: 0, watchStore: true });
      await app.ready;
      const info = await app.call('app.info', {});
      expect(info.readOnly).toBe(true);
      expect(info.notices?.[0]).toContain('is read-only');
      expect((await app.call('sessions.list', {})).total).toBe(2);
      const rename = app.call('sessions.rename', { id: ids[0]!, title: 'New' });
      await expect(rename).rejects.toBeInstanceOf(AppError);
      await expect(rename).rejects.toMatchObject({ code: 'read-only' });
      await expect(app.call('settings.set', { theme: 'dark' })).rejects.toMatchObject({ code: 'read-only' });
      const exportedByApp = await app.call('sessions.export', { id: ids[0]!, format: 'md' });
      expect(exportedByApp.path.startsWith(dataDir)).toBe(false);
      expect(existsSync(exportedByApp.path)).toBe(true);
      await app.close();

      expect(readdirSync(dataDir).sort()).toEqual(files);
    },
    300_000,
  );

  it.skipIf(!canMount)(
    'reads a store whose write-ahead log was left behind in place, the log included',
    async () => {
      execFileSync('mount', ['-o', 'remount,rw', mount.dir]);
      const dataDir = folderIn(mount, 'left-open');
      const ids = recordTwo(dataDir);
      renameAndDie(join(dataDir, 'fleetscope.db'), ids[0]!, 'Renamed in the log');
      expect(existsSync(join(dataDir, 'fleetscope.db-wal'))).toBe(true);
      mount.makeReadOnly();

      const listed = await cli('sessions', '--data-dir', dataDir);
      expect(listed).toMatchObject({ code: 0, err: '' });
      expect(listed.out).toContain('Renamed in the log');
      await expectWritesRefused(dataDir, ids);
    },
    300_000,
  );

  it.skipIf(!canMount)(
    'says a store that needs an upgrade cannot be opened read-only at this version',
    async () => {
      execFileSync('mount', ['-o', 'remount,rw', mount.dir]);
      const dataDir = folderIn(mount, 'older');
      openDatabase(join(dataDir, 'fleetscope.db'), { migrations: MIGRATIONS.slice(0, -1) }).db.close();
      mount.makeReadOnly();
      const listed = await cli('sessions', '--data-dir', dataDir);
      expect(listed.code).toBe(1);
      expect(listed.err).toContain(`was written by an older Fleetscope (schema ${MIGRATIONS.length - 1}`);
      expect(listed.err).toContain('cannot be done in a read-only folder');
    },
  );
});

/** Whether this process may run a child as another user (root here; elsewhere, no). */
const canDropPrivileges = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
if (!canDropPrivileges)
  console.log('SKIPPED read-only file modes test: needs root and setpriv to run as another user');

describe('a store file and folder another user cannot write (file modes)', () => {
  it.skipIf(!canDropPrivileges)(
    'opens read-only for reading commands and refuses writing ones',
    async () => {
      const temp = makeTempDir('fleetscope-modes-');
      const dataDir = join(temp.dir, 'data');
      const ids = recordTwo(dataDir);
      chmodSync(temp.dir, 0o755);
      chmodSync(dataDir, 0o555);
      chmodSync(join(dataDir, 'fleetscope.db'), 0o444);
      const files = readdirSync(dataDir).sort();
      const asNobody = (...args: string[]) =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const process_ = spawn(
            'setpriv',
            [
              '--reuid=65534',
              '--regid=65534',
              '--clear-groups',
              process.execPath,
              child,
              ...args,
              '--data-dir',
              dataDir,
            ],
            { cwd: root, env: { PATH: process.env.PATH, HOME: temp.dir }, stdio: ['ignore', 'pipe', 'pipe'] },
          );
          let stdout = '';
          let stderr = '';
          process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          process_.on('exit', (code) => resolve({ code, stdout, stderr }));
        });
      const listed = await asNobody('sessions');
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('Showing 2 of 2 sessions.');
      const refused = await asNobody('run', FLEET, '--task', 'More');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`The data folder ${dataDir} is read-only`);
      expect(readdirSync(dataDir).sort()).toEqual(files);
      expect(ids).toHaveLength(2);
      chmodSync(dataDir, 0o755);
      temp.remove();
    },
    600_000,
  );
});
