import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

const root = join(import.meta.dirname, '../../..');
const child = join(root, 'test/helpers/cli-child.mjs');

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(args: string[], env: NodeJS.ProcessEnv = {}) {
  const process_ = spawn(process.execPath, [child, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve) =>
    process_.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { process: process_, finished, output: () => stdout };
}

describe('fleetscope run as a process', () => {
  it('runs a scripted example and exits 0 with the summary last', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-proc-'));
    const { finished } = launch([
      'run',
      'resources/fleets/scripted/research-fanout.json',
      '--task',
      'State of agent tooling',
      '--data-dir',
      dataDir,
    ]);
    const result = await finished;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('editor → user [result]');
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(
      /completed: Finished: every agent had its turn.* 5 messages/,
    );
  }, 30_000);

  it('Ctrl+C (SIGINT) cancels a run waiting on the provider and exits 1', async () => {
    stub.enqueue({ type: 'stall', content: 'thinking' });
    const dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-proc-'));
    const running = launch(
      [
        'run',
        'resources/fleets/openai/debate.json',
        '--task',
        'x',
        '--base-url',
        stub.baseUrl,
        '--data-dir',
        dataDir,
      ],
      { OPENAI_API_KEY: 'sk-child' },
    );
    const deadline = Date.now() + 20_000;
    while (!running.output().includes('thinking') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    running.process.kill('SIGINT');
    const result = await running.finished;
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n').at(-1)).toContain('stopped: Cancelled before the end');
    expect(stub.chatRequests()[0]?.abortedAt).not.toBeNull();
  }, 30_000);
});
