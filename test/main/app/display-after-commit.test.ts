import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../../src-main/history';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { makeTempDir } from '../../helpers/temp-dir';

const CHILD = fileURLToPath(new URL('../../helpers/displayed-run-child.mjs', import.meta.url));
const KILLS = 6;

interface KilledRun {
  sessionId: string;
  shown: string[];
}

/** Runs the child until it has shown `after` completions plus a random wait, then SIGKILLs it. */
function runAndKill(dataDir: string, baseUrl: string, after: number, waitMs: number): Promise<KilledRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir, baseUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: KilledRun = { sessionId: '', shown: [] };
    let buffer = '';
    let stderr = '';
    let armed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'ready' && value) run.sessionId = value;
        else if (word === 'shown' && value) run.shown.push(value);
      }
      if (!armed && run.shown.length >= after) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), waitMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the run ended without being killed: ${stderr}`));
      else resolve(run);
    });
  });
}

describe('durability before display: what a surface showed survives SIGKILL', () => {
  const temp = makeTempDir('fleetscope-display-crash-');
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
    // Replies stream in a few pieces, sometimes with a pause, so kills land anywhere in a turn.
    let n = 0;
    stub.respondWith(() => {
      n += 1;
      return { type: 'text', content: `reply ${n} ${'word '.repeat(12)}`, chunkSize: 9, delayMs: n % 3 };
    });
  });
  afterAll(async () => {
    await stub?.close();
    temp.remove();
  });

  it(
    `every completion the API's onEvent received is complete in the store after SIGKILL (${KILLS} kills)`,
    { timeout: 240_000 },
    async () => {
      let shownTotal = 0;
      for (let kill = 0; kill < KILLS; kill += 1) {
        const dataDir = `${temp.dir}/run-${kill}`;
        const run = await runAndKill(dataDir, stub.baseUrl, 1 + kill * 5, Math.floor(Math.random() * 60));
        expect(run.sessionId).not.toBe('');
        expect(run.shown.length).toBeGreaterThan(kill * 5);
        shownTotal += run.shown.length;

        const history = openHistory(dataDir);
        try {
          expect(history.db.pragma('quick_check', { simple: true })).toBe('ok');
          const messages = history.store.pageMessages(run.sessionId, { limit: 1000 }).items;
          const complete = new Set(messages.filter((m) => m.state === 'complete').map((m) => m.id));
          for (const id of run.shown) expect(complete.has(id), `${id} was shown`).toBe(true);
          expect(history.store.getSession(run.sessionId)?.summary.status).toBe('interrupted');
        } finally {
          history.close();
        }
      }
      expect(shownTotal).toBeGreaterThan(KILLS);
    },
  );
});
