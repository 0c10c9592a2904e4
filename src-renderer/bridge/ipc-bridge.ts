import type { Result } from '@shared/contract';
import { Emitter } from './emitter';
import { Sequencer } from './sequencer';
import type { Bridge, ConnectionState, PreloadApi } from './types';
import { WatchSet } from './watch-set';

/** Bridge over the desktop preload. IPC cannot drop messages, so it is always online. */
export function createIpcBridge(api: PreloadApi): Bridge {
  const events = new Emitter<Parameters<Parameters<Bridge['onDidReceiveEvent']>[0]>[0]>();
  const resync = new Emitter<void>();
  const sequencer = new Sequencer((event) => events.fire(event));
  const unsubscribe = api.onEvents((batch) => {
    for (const event of batch) {
      if (!sequencer.accept(event)) {
        resync.fire();
        sequencer.restartAt(event);
      }
    }
  });
  const call: Bridge['call'] = async (channel, input) => {
    const method = api.calls[channel];
    if (!method)
      return { ok: false, error: { code: 'unknown-channel', message: `No such channel: ${channel}` } };
    return (await method(input)) as Result<never>;
  };
  const watched = new WatchSet((ids) => void call('sessions.watch', { ids }));
  const importFile: Bridge['importFile'] = async (file, request) =>
    call('sessions.importData', { ...request, content: await file.text() });
  return {
    surface: 'desktop',
    connection: 'online' satisfies ConnectionState,
    call,
    watchSession: (sessionId) => watched.add(sessionId),
    importFile,
    onDidReceiveEvent: (listener) => events.on(listener),
    onDidRequireResync: (listener) => resync.on(listener),
    onDidChangeConnection: () => () => undefined,
    ...(api.pickFolder ? { pickFolder: () => api.pickFolder!() } : {}),
    dispose: () => unsubscribe(),
  };
}
