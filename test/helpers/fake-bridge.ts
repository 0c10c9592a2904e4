import type { ChannelName, Delivered, Input, Output, Result } from '@shared/contract';
import type { Bridge, ConnectionState } from '../../src-renderer/bridge/types';

type Responder = (channel: ChannelName, input: unknown) => Result<unknown>;

/** An in-memory bridge for component tests: records calls, answers with `respond`, emits events. */
export function createFakeBridge(respond: Responder) {
  const eventListeners = new Set<(event: Delivered) => void>();
  const resyncListeners = new Set<() => void>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const calls: Array<{ channel: ChannelName; input: unknown }> = [];
  let connection: ConnectionState = 'online';
  const bridge: Bridge = {
    surface: 'browser',
    get connection() {
      return connection;
    },
    async call<C extends ChannelName>(channel: C, input: Input<C>) {
      calls.push({ channel, input });
      return respond(channel, input) as Result<Output<C>>;
    },
    onDidReceiveEvent: (listener) => (eventListeners.add(listener), () => eventListeners.delete(listener)),
    onDidRequireResync: (listener) => (resyncListeners.add(listener), () => resyncListeners.delete(listener)),
    onDidChangeConnection: (listener) => (
      connectionListeners.add(listener),
      () => connectionListeners.delete(listener)
    ),
    dispose: () => undefined,
  };
  return {
    bridge,
    calls,
    emit: (event: Delivered) => eventListeners.forEach((listener) => listener(event)),
    setConnection(state: ConnectionState) {
      connection = state;
      connectionListeners.forEach((listener) => listener(state));
    },
  };
}
