import type { ChannelName, Delivered, Input, Output, Result } from '@shared/contract';
import type { Bridge, ConnectionState } from '../../src-renderer/bridge/types';
import { assertContractAnswer } from './contract-answer';

type Responder = (channel: ChannelName, input: unknown) => Result<unknown>;

/**
 * An in-memory bridge for component tests: records calls, answers with `respond` (each answer
 * checked against the contract), emits events, and tracks the sessions views watch.
 */
export function createFakeBridge(respond: Responder) {
  const eventListeners = new Set<(event: Delivered) => void>();
  const resyncListeners = new Set<() => void>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const calls: Array<{ channel: ChannelName; input: unknown }> = [];
  /** Sessions watched now, with how many openers hold each. */
  const watched = new Map<string, number>();
  let connection: ConnectionState = 'online';
  const bridge: Bridge = {
    surface: 'browser',
    get connection() {
      return connection;
    },
    async call<C extends ChannelName>(channel: C, input: Input<C>) {
      calls.push({ channel, input });
      const result = respond(channel, input);
      // Answers are checked like the real backend's: a stand-in that drifts from the contract fails here.
      assertContractAnswer(channel, result);
      return result as Result<Output<C>>;
    },
    // Answered as the channel it stands for, so tests see one `sessions.importData` call either way.
    async importFile(file, request) {
      return bridge.call('sessions.importData', { ...request, content: await file.text() });
    },
    watchSession(sessionId) {
      watched.set(sessionId, (watched.get(sessionId) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (watched.get(sessionId) ?? 1) - 1;
        if (left > 0) watched.set(sessionId, left);
        else watched.delete(sessionId);
      };
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
    /** Ids of the sessions some view watches now. */
    watchedSessions: () => [...watched.keys()],
    emit: (event: Delivered) => eventListeners.forEach((listener) => listener(event)),
    setConnection(state: ConnectionState) {
      connection = state;
      connectionListeners.forEach((listener) => listener(state));
    },
  };
}
