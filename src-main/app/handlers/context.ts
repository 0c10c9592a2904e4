import type { HistoryStore } from '../../history';
import { inspectContext } from '../services/context-inspector';
import type { Handlers } from './dispatcher';

/** The context inspector's query (see `inspectContext`). */
export function registerContextHandlers(store: HistoryStore): Pick<Handlers, 'sessions.context'> {
  return {
    'sessions.context': ({ id, messageId }) => inspectContext(store, id, messageId),
  };
}
