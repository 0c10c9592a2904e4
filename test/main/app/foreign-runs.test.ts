import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-shared/domain';
import { createApp } from '../../../src-main/app';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

const root = join(import.meta.dirname, '../../..');
const cliChild = join(root, 'test/helpers/cli-child.mjs');

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
  // Slow replies: each message streams for about half a second.
  stub.respondWith(() => ({ type: 'text', content: 'point '.repeat(25), chunkSize: 6, delayMs: 20 }));
});
afterAll(() => stub.close());

describe('a CLI run beside the app, one store', () => {
  it('keeps running, is never marked interrupted, and streams into the app opened beside it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-beside-'));
    const cli = spawn(
      process.execPath,
      [
        cliChild,
        'run',
        'resources/fleets/openai/debate.json',
        '--task',
        'Motion',
        '--base-url',
        stub.baseUrl,
        '--max-messages',
        '5',
        '--json',
        '--data-dir',
        dataDir,
      ],
      {
        cwd: root,
        env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-beside' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const cliDone = new Promise<number | null>((resolve) => cli.on('exit', resolve));
    // Wait until the CLI has started its session and is streaming.
    for (let i = 0; i < 400 && !stdout.includes('"message.delta"'); i++)
      await new Promise((r) => setTimeout(r, 25));
    const sessionId = (JSON.parse(stdout.split('\n')[0] as string) as RunEvent).sessionId;

    // The app starts beside it (recovery on, as every surface does).
    const app = createApp({ dataDir, surface: 'browser', seedSamples: false, pingIntervalMs: 0 });
    const relayed: RunEvent[] = [];
    app.hub.onDidEmit((event) => {
      if (event.channel === 'run.events' && event.payload.sessionId === sessionId)
        relayed.push(...event.payload.events);
    });
    expect(app.store.getSession(sessionId)?.summary.status).toBe('running');

    const code = await cliDone;
    await new Promise((r) => setTimeout(r, 600)); // one more poll after the end
    await app.close();
    expect(code).toBe(0);
    // The app saw the run live: deltas while it streamed, and its end, in order without repeats.
    expect(relayed.some((event) => event.kind === 'message.delta')).toBe(true);
    expect(relayed.at(-1)?.kind).toBe('session.stopped');
    const seqs = relayed.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const reopened = createApp({
      dataDir,
      surface: 'browser',
      seedSamples: false,
      pingIntervalMs: 0,
      watchStore: false,
    });
    expect(reopened.store.getSession(sessionId)?.summary.status).toBe('completed');
    await reopened.close();
  }, 60_000);
});
