import type { HistoryStore } from '../../history';
import { ContextInspector } from '../services/context-inspector';
import type { Handlers } from './dispatcher';

/** The context inspector's query (see `ContextInspector`). */
export function registerContextHandlers(store: HistoryStore): Pick<Handlers, 'sessions.context'> {
  const inspector = new ContextInspector(store);
  return {
    'sessions.context': async ({ id, messageId }) => {
      await store.settle();
      return inspector.inspect(id, messageId);
    },
  };
}
