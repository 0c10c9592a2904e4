import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHANNEL_NAMES, type Delivered } from '@shared/contract';
import { EVENTS_CHANNEL, PICK_FOLDER_CHANNEL } from '../../../src-main/electron/ipc-names';
import {
  buildPreloadApi,
  PRELOAD_GLOBAL,
  type IpcRendererLike,
} from '../../../src-main/electron/preload/api';

type Listener = (event: unknown, events: Delivered[]) => void;

/** An in-memory ipcRenderer that records invokes and holds listeners per channel. */
function fakeIpcRenderer() {
  const invoked: Array<[string, unknown]> = [];
  const listeners = new Map<string, Set<Listener>>();
  const ipcRenderer: IpcRendererLike = {
    invoke: async (channel, payload) => {
      invoked.push([channel, payload]);
      return { ok: true, value: channel };
    },
    on: (channel, listener) => {
      const set = listeners.get(channel) ?? new Set();
      set.add(listener);
      listeners.set(channel, set);
    },
    removeListener: (channel, listener) => {
      listeners.get(channel)?.delete(listener);
    },
  };
  const emit = (channel: string, events: Delivered[]) =>
    listeners.get(channel)?.forEach((listener) => listener({ sender: 'electron-event' }, events));
  return { ipcRenderer, invoked, listeners, emit };
}

const sorted = (names: readonly string[]) => [...names].sort();

describe('the preload API', () => {
  it("exposes exactly the contract's channels, no more, no less", () => {
    const api = buildPreloadApi(fakeIpcRenderer().ipcRenderer);
    expect(sorted(Object.keys(api.calls))).toEqual(sorted(CHANNEL_NAMES));
    expect(Object.keys(api).sort()).toEqual(['calls', 'onEvents', 'pickFolder', 'surface']);
    expect(api.surface).toBe('desktop');
  });

  it('each call invokes its own channel with the payload as given', async () => {
    const fake = fakeIpcRenderer();
    const api = buildPreloadApi(fake.ipcRenderer);
    for (const channel of CHANNEL_NAMES) {
      await expect(api.calls[channel]({ probe: channel })).resolves.toEqual({ ok: true, value: channel });
    }
    expect(fake.invoked).toEqual(CHANNEL_NAMES.map((channel) => [channel, { probe: channel }]));
  });

  it("delivers event batches without Electron's event object, and unsubscribes", () => {
    const fake = fakeIpcRenderer();
    const api = buildPreloadApi(fake.ipcRenderer);
    const received: unknown[][] = [];
    const unsubscribe = api.onEvents((...args) => received.push(args));
    const batch = [{ seq: 1 }] as unknown as Delivered[];
    fake.emit(EVENTS_CHANNEL, batch);
    expect(received).toEqual([[batch]]);
    expect([...fake.listeners.keys()]).toEqual([EVENTS_CHANNEL]);

    unsubscribe();
    fake.emit(EVENTS_CHANNEL, batch);
    expect(received).toHaveLength(1);
    expect(fake.listeners.get(EVENTS_CHANNEL)?.size).toBe(0);
  });
});

describe('the preload entry', () => {
  afterEach(() => {
    vi.doUnmock('electron');
    vi.resetModules();
  });

  it('exposes one global, window.fleetscope, holding exactly the built API', async () => {
    const exposed: Array<[string, unknown]> = [];
    const fake = fakeIpcRenderer();
    // A stand-in for the 'electron' module (an external dependency, not runnable here).
    vi.doMock('electron', () => ({
      contextBridge: { exposeInMainWorld: (key: string, value: unknown) => exposed.push([key, value]) },
      ipcRenderer: fake.ipcRenderer,
    }));
    await import('../../../src-main/electron/preload/index');
    expect(exposed.map(([key]) => key)).toEqual([PRELOAD_GLOBAL]);
    expect(PRELOAD_GLOBAL).toBe('fleetscope');
    const api = exposed[0]?.[1] as ReturnType<typeof buildPreloadApi>;
    expect(sorted(Object.keys(api.calls))).toEqual(sorted(CHANNEL_NAMES));
    await api.calls['app.info']({});
    expect(fake.invoked).toEqual([['app.info', {}]]);
  });

  it('picks a folder over its own channel and passes on only a path or null', async () => {
    for (const [answer, expected] of [
      ['/home/ana/notes', '/home/ana/notes'],
      [null, null],
      ['', null],
      [{ path: '/etc' }, null],
    ] as const) {
      const invoked: Array<[string, unknown]> = [];
      const api = buildPreloadApi({
        ...fakeIpcRenderer().ipcRenderer,
        invoke: async (channel, payload) => (invoked.push([channel, payload]), answer),
      });
      expect(await api.pickFolder()).toBe(expected);
      expect(invoked).toEqual([[PICK_FOLDER_CHANNEL, null]]);
    }
  });
});
