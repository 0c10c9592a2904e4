import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, runInBackground } from '../../../../src-main/interop/import/worker/thread-priority';

/** The nice value of the calling thread, from /proc (Linux). */
function ownNice(): number {
  return Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);
}

const MODULE = fileURLToPath(
  new URL('../../../../src-main/interop/import/worker/thread-priority.ts', import.meta.url),
);
const JITI = createRequire(import.meta.url).resolve('jiti');

describe("an import's parsing thread runs in the background", () => {
  it("lowers only its own thread's priority, not the main thread's (Linux; elsewhere it says it cannot)", async () => {
    if (process.platform !== 'linux') {
      console.log(
        'thread-priority: only Linux gives each thread a nice value of its own; nothing lowered here',
      );
      expect(runInBackground()).toBe(false);
      return;
    }
    const before = ownNice();
    // The module as a thread runs it, loaded from the sources through jiti (as the parse
    // worker's source entry does).
    const code = `
        const { parentPort } = require('node:worker_threads');
        const { readFileSync } = require('node:fs');
        const { createJiti } = require(${JSON.stringify(JITI)});
        const jiti = createJiti(${JSON.stringify(MODULE)});
        jiti.import(${JSON.stringify(MODULE)}).then(({ runInBackground }) => {
          const lowered = runInBackground();
          const nice = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')[16]);
          parentPort.postMessage({ lowered, nice });
        });
      `;
    const worker = new Worker(code, { eval: true });
    const answer = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(answer).toEqual({ lowered: true, nice: Math.max(before, BACKGROUND_NICE) });
    expect(ownNice()).toBe(before);
  });
});
