import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { sampleEvents } from '../interop/export/sample-session';
import { failChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

describe('sessions.list sorted by tokens and duration', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;

  beforeEach(() => {
    temp = makeTempDir();
    app = createApp({
      dataDir: temp.dir,
      surface: 'cli',
      pingIntervalMs: 0,
      seedSamples: false,
      watchStore: false,
    });
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  /** Sample runs of 5, 30 and 12 messages, imported in that order (each reply carries usage). */
  function importThree(): string[] {
    return [5, 30, 12].map((messages, index) =>
      app.store.importSession(
        {
          title: `run ${messages}`,
          task: 't',
          fleetName: 'f',
          source: 'test',
          createdAt: 1_000 + index,
          tags: [],
        },
        sampleEvents(messages),
      ),
    );
  }
  const titles = async (sort?: { by: 'created' | 'tokens' | 'duration'; ascending?: boolean }) =>
    (await app.call('sessions.list', sort ? { sort } : {})).items.map((item) => item.title);

  it('orders by tokens and by duration, most first or least first, and newest first by default', async () => {
    importThree();
    expect(await titles()).toEqual(['run 12', 'run 30', 'run 5']);
    expect(await titles({ by: 'tokens' })).toEqual(['run 30', 'run 12', 'run 5']);
    expect(await titles({ by: 'tokens', ascending: true })).toEqual(['run 5', 'run 12', 'run 30']);
    expect(await titles({ by: 'duration' })).toEqual(['run 30', 'run 12', 'run 5']);
    expect(await titles({ by: 'created', ascending: true })).toEqual(['run 5', 'run 30', 'run 12']);
    const items = (await app.call('sessions.list', { sort: { by: 'tokens' } })).items;
    expect(items[0]!.tokens).toBeGreaterThan(items[1]!.tokens);
  });

  it('refuses an unknown sort key, changing nothing', async () => {
    const error = await failChecked(
      app.dispatcher,
      'sessions.list',
      { sort: { by: 'cost-per-word' } },
      { surface: 'cli' },
    );
    expect(error.code).toBe('invalid-input');
  });
});
