import { afterEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { defineComponent, h, ref } from 'vue';
import FolderField from '../../src-renderer/ui/FolderField.vue';
import { createIpcBridge } from '../../src-renderer/bridge/ipc-bridge';
import type { PreloadApi } from '../../src-renderer/bridge/types';

/** The field inside a parent holding its v-model, as the run forms use it. */
function mountField(pick?: () => Promise<string | null>) {
  const folder = ref('/typed/before');
  const Host = defineComponent(
    () => () =>
      h(FolderField, {
        modelValue: folder.value,
        'onUpdate:modelValue': (value: string) => (folder.value = value),
        pick,
      }),
  );
  return { view: mount(Host, { attachTo: document.body }), folder };
}

describe('the run form folder field', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('has no Choose… button where the host has no folder picker (a browser)', () => {
    const { view } = mountField();
    expect(view.find('[data-testid="run-folder-choose"]').exists()).toBe(false);
    expect(view.get('label').attributes('for')).toBe(view.get('input').attributes('id'));
  });

  it('fills in the folder chosen in the native dialog, and keeps the typed one when cancelled', async () => {
    const answers: Array<string | null> = [null, '/home/ana/notes'];
    const { view, folder } = mountField(async () => answers.shift() ?? null);
    const choose = view.get('[data-testid="run-folder-choose"]');
    await choose.trigger('click');
    await flushPromises();
    expect(folder.value).toBe('/typed/before');
    await choose.trigger('click');
    await flushPromises();
    expect(folder.value).toBe('/home/ana/notes');
    expect((view.get('[data-testid="run-folder"]').element as HTMLInputElement).value).toBe(
      '/home/ana/notes',
    );
  });
});

describe("the desktop bridge's folder picker", () => {
  const api = (pickFolder?: () => Promise<string | null>): PreloadApi => ({
    surface: 'desktop',
    calls: {},
    onEvents: () => () => undefined,
    ...(pickFolder ? { pickFolder } : {}),
  });

  it("is the preload's picker, and absent when the preload has none", async () => {
    expect(await createIpcBridge(api(async () => '/srv/data')).pickFolder?.()).toBe('/srv/data');
    expect(createIpcBridge(api()).pickFolder).toBeUndefined();
  });
});
