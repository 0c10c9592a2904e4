import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../../src-main/history';
import { SessionScript } from '../../helpers/temp-store';

const root = join(import.meta.dirname, '../../..');
const child = join(root, 'test/helpers/cli-child.mjs');
const MESSAGES = 6_000;

let dataDir: string;
let sessionId: string;

beforeAll(() => {
  // A session whose `show --json` is several megabytes: far more than a pipe holds at once.
  dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-output-'));
  const { store, close } = openHistory(dataDir);
  const script = new SessionScript();
  sessionId = script.sessionId;
  store.append(script.started());
  for (let i = 0; i < MESSAGES; i++) {
    const body = `message ${i} ${'lorem ipsum dolor sit amet '.repeat(20)}`;
    for (const event of script.message(`m${i}`, i % 2 ? 'ann' : 'bob', '*', [body])) store.append(event);
  }
  store.append(script.stopped());
  close();
}, 60_000);

afterAll(() => undefined);

function runCli(args: string[], options: { readLines?: number } = {}) {
  const proc = spawn(process.execPath, [child, ...args, '--data-dir', dataDir], {
    cwd: root,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let lines = 0;
  proc.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    lines += chunk.toString().split('\n').length - 1;
    // Like `| head -n N`: the reader goes away after N lines.
    if (options.readLines !== undefined && lines >= options.readLines) proc.stdout.destroy();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString(), stderr })),
  );
}

describe('CLI output to pipes', () => {
  it('show --json through a pipe is complete, valid JSON, however large', async () => {
    const result = await runCli(['show', sessionId, '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(3_000_000);
    const parsed = JSON.parse(result.stdout) as { messages: unknown[] };
    expect(parsed.messages).toHaveLength(MESSAGES);
  }, 60_000);

  it('show | head: a reader that goes away early ends the command quietly', async () => {
    const result = await runCli(['show', sessionId], { readLines: 3 });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|Error/);
    expect(result.code).toBe(0);
  }, 60_000);

  it('show numbers the messages from 1, in the order of show --json', async () => {
    const result = await runCli(['show', sessionId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^#1 \[\+/m);
    expect(result.stdout).toMatch(new RegExp(`^#${MESSAGES} \\[\\+`, 'm'));
  }, 60_000);
});
