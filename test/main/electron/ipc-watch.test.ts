import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Delivered, Result } from '@shared/contract';
import type { FleetInput, RunEvent } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import {
  forwardEvents,
  registerIpcHandlers,
  WindowClients,
  type WindowLike,
} from '../../../src-main/electron/ipc';
import { EVENTS_CHANNEL } from '../../../src-main/electron/ipc-names';
import { makeTempDir } from '../../helpers/temp-dir';
import { FakeIpcMain, frame } from './fake-ipc-main';

const RENDERER = 'file:///opt/Fleetscope/resources/app.asar/out/renderer/index.html';

/** A window that records the event batches sent to it. */
function fakeWindow(id: number) {
  const batches: Delivered[][] = [];
  const window: WindowLike = {
    isDestroyed: () => false,
    webContents: {
      id,
      send: (channel: string, ...args: unknown[]) => {
        if (channel === EVENTS_CHANNEL) batches.push(args[0] as Delivered[]);
      },
    },
  };
  return { window, events: () => batches.flat() };
}

const quick: FleetInput = {
  version: 1,
  name: 'Quick',
  agents: [{ name: 'solo', type: 'scripted', script: [{ content: 'Done.' }] }],
  team: { pattern: 'sequential' },
  termination: { type: 'max-messages', max: 1 },
};

function statusEvent(sessionId: string, seq: number): RunEvent {
  return { sessionId, seq, t: seq, agent: null, kind: 'session.status', payload: { status: 'running' } };
}

/** Each desktop window is its own client: it gets live run events only of the sessions it watches. */
describe('per-window run events over IPC', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;
  let ipcMain: FakeIpcMain;
  let clients: WindowClients;
  const stops: Array<() => void> = [];

  /** A call from window `id`'s main frame, as Electron's invoke event carries it. */
  const invoke = async (id: number, channel: string, payload: unknown) => {
    const listener = ipcMain.handlers.get(channel);
    if (!listener) throw new Error(`no handler for ${channel}`);
    return (await listener({ senderFrame: frame(RENDERER), sender: { id } }, payload)) as Result<unknown>;
  };

  beforeEach(() => {
    temp = makeTempDir();
    app = createApp({ dataDir: temp.dir, surface: 'desktop', pingIntervalMs: 0, seedSamples: false });
    ipcMain = new FakeIpcMain();
    clients = new WindowClients();
    stops.push(registerIpcHandlers(app, ipcMain, RENDERER, clients));
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await app.close();
    temp.remove();
  });

  it('delivers run events only to the window watching their session; store changes to every window', async () => {
    const start = async (task: string) => {
      const result = await app.dispatcher.dispatch(
        'runs.start',
        { source: { fleet: quick }, task },
        { surface: 'desktop' },
      );
      if (!result.ok) throw new Error(result.error.message);
      const { sessionId } = result.value as { sessionId: string };
      await expect.poll(() => app.store.getSession(sessionId)?.summary.status).toBe('completed');
      return sessionId;
    };
    const a = await start('one');
    const b = await start('two');
    const first = fakeWindow(1);
    const second = fakeWindow(2);
    stops.push(forwardEvents(app, first.window, clients), forwardEvents(app, second.window, clients));

    expect(await invoke(1, 'sessions.watch', { ids: [a] })).toEqual({ ok: true, value: { ids: [a] } });
    expect(await invoke(2, 'sessions.watch', { ids: [b] })).toEqual({ ok: true, value: { ids: [b] } });
    expect(await invoke(2, 'sessions.watch', { ids: [b, 'never-stored'] })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });

    app.hub.emit('run.events', { sessionId: a, events: [statusEvent(a, 1)] });
    app.hub.emit('run.events', { sessionId: b, events: [statusEvent(b, 1)] });
    app.hub.emit('store.changed', { topic: 'sessions' });
    await expect.poll(() => first.events().some((event) => event.channel === 'store.changed')).toBe(true);
    await expect.poll(() => second.events().some((event) => event.channel === 'store.changed')).toBe(true);

    const sessionsIn = (events: Delivered[]) =>
      events.flatMap((event) => (event.channel === 'run.events' ? [event.payload.sessionId] : []));
    expect(new Set(sessionsIn(first.events()))).toEqual(new Set([a]));
    expect(new Set(sessionsIn(second.events()))).toEqual(new Set([b]));
    // The seqs each window sees stay contiguous: what went elsewhere is marked as skipped.
    for (const events of [first.events(), second.events()]) {
      const covered = events.flatMap((event) =>
        event.channel === 'events.skipped'
          ? Array.from({ length: event.seq - event.payload.fromSeq + 1 }, (_, i) => event.payload.fromSeq + i)
          : [event.seq],
      );
      expect(covered).toEqual(covered.map((_, index) => covered[0]! + index));
    }
  });

  it('forgets a window when its forwarding stops, and a call without a sender has no client', async () => {
    const window = fakeWindow(7);
    const stop = forwardEvents(app, window.window, clients);
    const client = clients.of(7);
    stop();
    expect(clients.of(7)).not.toBe(client);
    const listener = ipcMain.handlers.get('sessions.watch');
    const result = (await listener?.({ senderFrame: frame(RENDERER) }, { ids: [] })) as Result<unknown>;
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });
});
