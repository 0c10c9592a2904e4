import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, defaultResourcesDir } from '../../../src-main/app';
import { makeTempDir } from '../../helpers/temp-dir';

describe('first launch', () => {
  const temp = makeTempDir();
  afterEach(() => temp.remove());

  it('imports every shipped sample session once, and never again after the user deletes them', async () => {
    const samples = readdirSync(join(defaultResourcesDir(), 'samples')).filter((name) =>
      name.endsWith('.json'),
    );
    expect(samples.length).toBeGreaterThanOrEqual(6);

    const first = createApp({ dataDir: temp.dir, surface: 'cli', pingIntervalMs: 0 });
    await first.ready;
    const listed = first.store.listSessions({ limit: 50 });
    expect(listed.total).toBe(samples.length);
    expect(new Set(listed.items.map((item) => item.fleetName)).size).toBeGreaterThanOrEqual(5);
    expect(listed.items.every((item) => item.readOnly && item.messageCount > 0)).toBe(true);
    for (const item of listed.items) first.store.deleteSession(item.id);
    await first.close();

    const second = createApp({ dataDir: temp.dir, surface: 'cli', pingIntervalMs: 0 });
    await second.ready;
    expect(second.store.listSessions({}).total).toBe(0);
    await second.close();
  }, 60_000);
});
