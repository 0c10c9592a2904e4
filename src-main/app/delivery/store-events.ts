import type { HistoryStore } from '../../history';
import type { EventHub } from './event-hub';

/** Store-change announcements go out at most this often per topic (live runs change a lot). */
const THROTTLE_MS = 250;

/** Relays the store's changes to every surface as throttled `store.changed` events. */
export function announceStoreChanges(store: HistoryStore, hub: EventHub): () => void {
  const timers = new Map<string, NodeJS.Timeout>();
  const announce = (topic: string, id?: string) => {
    const key = `${topic}:${id ?? ''}`;
    if (timers.has(key)) return;
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        hub.emit('store.changed', id === undefined ? { topic } : { topic, id });
      }, THROTTLE_MS),
    );
  };
  const unsubscribe = store.onDidChange((change) => {
    switch (change.type) {
      case 'sessions-changed':
      case 'session-deleted':
        announce('sessions');
        for (const id of change.sessionIds.slice(0, 20)) announce('session', id);
        break;
      case 'fleets-changed':
        announce('fleets');
        break;
    }
  });
  return () => {
    unsubscribe();
    for (const timer of timers.values()) clearTimeout(timer);
  };
}
