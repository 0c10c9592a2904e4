// The built package as people use it from outside the repo: `fleetscope/api` imported by a script
// elsewhere, and `npx fleetscope run` stopped with a signal. Runs after the build (browser tier).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiStub, type OpenAiStub } from '../helpers/openai-stub';

const root = join(import.meta.dirname, '../..');

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());

function sessionsJson(dataDir: string): { items: Array<{ status: string; stopReason: string | null }> } {
  const listed = spawnSync(
    process.execPath,
    [join(root, 'bin/fleetscope.mjs'), 'sessions', '--json', '--data-dir', dataDir],
    {
      encoding: 'utf8',
    },
  );
  expect(listed.status).toBe(0);
  return JSON.parse(listed.stdout) as { items: Array<{ status: string; stopReason: string | null }> };
}

describe('the built package', () => {
  it('a script outside the repo imports the "./api" export and runs a fleet into a store', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string>;
    };
    const entry = join(root, pkg.exports['./api'] as string);
    const outside = mkdtempSync(join(tmpdir(), 'fleetscope-api-user-'));
    const dataDir = join(outside, 'data');
    const script = join(outside, 'use-api.mjs');
    writeFileSync(
      script,
      `import { openStore, runFleet } from ${JSON.stringify(entry)};
const summary = await runFleet({ fleet: ${JSON.stringify(join(root, 'resources/fleets/scripted/debate.json'))},
  task: 'Is tea better than coffee?', dataDir: ${JSON.stringify(dataDir)} });
const store = openStore(${JSON.stringify(dataDir)});
const listed = await store.listSessions();
await store.close();
console.log(JSON.stringify({ summary, total: listed.total, stored: listed.items[0].id }));`,
    );
    const result = spawnSync(process.execPath, [script], { cwd: outside, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout) as {
      summary: { sessionId: string; status: string; stopReason: string; messageCount: number };
      total: number;
      stored: string;
    };
    expect(out.summary.status).toBe('completed');
    expect(out.summary.messageCount).toBeGreaterThan(2);
    expect(out.total).toBe(1);
    expect(out.stored).toBe(out.summary.sessionId);
  }, 60_000);

  for (const launcher of ['npx', 'bin'] as const) {
    it(`SIGTERM sent to the process a person started (${launcher === 'npx' ? 'npx fleetscope' : 'bin/fleetscope.mjs'}) cancels the run and stores it as stopped`, async () => {
      stub.enqueue({ type: 'stall', content: 'thinking' });
      const dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-signal-'));
      const args = [
        'run',
        'resources/fleets/openai/debate.json',
        '--task',
        'x',
        '--base-url',
        stub.baseUrl,
        '--data-dir',
        dataDir,
      ];
      const child =
        launcher === 'npx'
          ? spawn('npx', ['--no-install', 'fleetscope', ...args], {
              cwd: root,
              env: { ...process.env, OPENAI_API_KEY: 'sk-test' },
            })
          : spawn(process.execPath, [join(root, 'bin/fleetscope.mjs'), ...args], {
              cwd: root,
              env: { ...process.env, OPENAI_API_KEY: 'sk-test' },
            });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      for (let i = 0; i < 600 && !stdout.includes('thinking'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toContain('thinking');
      child.kill('SIGTERM');
      await exited;
      // The run itself (a grandchild under npx) notices and records the cancellation.
      let status = '';
      for (let i = 0; i < 100; i++) {
        status = sessionsJson(dataDir).items[0]?.status ?? '';
        if (status === 'stopped') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe('stopped');
      expect(sessionsJson(dataDir).items[0]?.stopReason).toBe('cancelled');
    }, 90_000);
  }
});
