import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TransferError } from '../../../../src-main/interop/import';
import { DEFAULT_IMPORT_LIMITS } from '../../../../src-main/interop/import/limits';
import { ParseWorker } from '../../../../src-main/interop/import/worker/worker-client';
import { makeTempDir } from '../../../helpers/temp-dir';

const temp = makeTempDir('fleetscope-parse-worker-');
afterAll(() => temp.remove());

const job = (workerHeapMb = DEFAULT_IMPORT_LIMITS.workerHeapMb) => ({
  path: join(temp.dir, 'unused.json'),
  size: 0,
  fileTime: 0,
  limits: { ...DEFAULT_IMPORT_LIMITS, workerHeapMb },
});

/** A stand-in worker script, to make the parsing thread fail in each way it can. */
function script(name: string, source: string): URL {
  const path = join(temp.dir, name);
  writeFileSync(path, source);
  return pathToFileURL(path);
}

async function failure(worker: ParseWorker): Promise<TransferError> {
  try {
    const error = await worker.next().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TransferError);
    return error as TransferError;
  } finally {
    await worker.close();
  }
}

describe('the parsing thread fails loudly, never silently', () => {
  it('says the thread could not run when its script is missing', async () => {
    const worker = await ParseWorker.start(job(), pathToFileURL(join(temp.dir, 'missing.mjs')));
    const error = await failure(worker);
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/^The import's parsing thread failed: .*missing\.mjs/);
  });

  it('passes on the reason when the script throws while loading', async () => {
    const worker = await ParseWorker.start(
      job(),
      script('throws.mjs', "throw new Error('bundle is broken');"),
    );
    const error = await failure(worker);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe("The import's parsing thread failed: bundle is broken");
  });

  it('says the thread stopped when it exits without a result', async () => {
    const worker = await ParseWorker.start(job(), script('exits.mjs', 'process.exit(3);'));
    const error = await failure(worker);
    expect(error.message).toBe("The import's parsing thread stopped before it finished (exit code 3).");
  });

  it('reports running out of its heap as too large, and the host carries on', async () => {
    const hog = script(
      'hog.mjs',
      'const kept = []; for (;;) kept.push(new Array(100_000).fill(kept.length));',
    );
    const worker = await ParseWorker.start(job(32), hog);
    const error = await failure(worker);
    expect(error.code).toBe('too-large');
    expect(error.message).toBe('Importing this file needs more than the 32 MB of memory an import may use.');
  });
});
