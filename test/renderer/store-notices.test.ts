import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { AppInfo } from '@shared/contract';
import StoreNotices from '../../src-renderer/shell/StoreNotices.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { useConnectionStore } from '../../src-renderer/shell/connection-store';
import { createFakeBridge } from '../helpers/fake-bridge';

const READ_ONLY = 'The data folder /share is read-only (a read-only folder, share or backup).';
const FULL = 'The store /share/fleetscope.db cannot write: the disk holding /share is full (1.0 MB free).';

describe('the store notices banner', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows the read-only notice with the flag, and a fault announced later once app.info has it', async () => {
    const info: AppInfo = {
      name: 'Fleetscope',
      version: '9.9.9',
      dataDir: '/share',
      surface: 'browser',
      platform: 'linux',
      readOnly: true,
      notices: [READ_ONLY],
    };
    const fake = createFakeBridge((channel) =>
      channel === 'app.info'
        ? { ok: true, value: { ...info, notices: [...(info.notices ?? [])] } }
        : { ok: false, error: { code: 'unknown-channel', message: channel } },
    );
    setBridge(fake.bridge);
    const view = mount(StoreNotices);
    const connection = useConnectionStore();
    await connection.loadInfo();
    await flushPromises();
    expect(connection.readOnly).toBe(true);
    expect(view.get('[data-testid="store-notices"]').text()).toBe(READ_ONLY);

    info.notices = [READ_ONLY, FULL];
    fake.emit({ seq: 1, channel: 'store.changed', payload: { topic: 'app' } });
    await flushPromises();
    expect(view.findAll('[data-testid="store-notices"] p').map((p) => p.text())).toEqual([READ_ONLY, FULL]);
  });

  it('shows nothing when the store has nothing to say', async () => {
    setBridge(
      createFakeBridge(() => ({
        ok: true,
        value: { name: 'Fleetscope', version: '1', dataDir: '/d', surface: 'browser', platform: 'linux' },
      })).bridge,
    );
    const view = mount(StoreNotices);
    await useConnectionStore().loadInfo();
    await flushPromises();
    expect(view.find('[data-testid="store-notices"]').exists()).toBe(false);
    expect(useConnectionStore().readOnly).toBe(false);
  });
});
