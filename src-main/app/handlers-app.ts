import type { AppInfo } from '@shared/contract';
import type { SettingsStore } from '../history/settings-store';
import type { EventHub } from './event-hub';
import type { Handlers } from './dispatcher';

type AppHandlers = Pick<Handlers, 'app.info' | 'settings.get' | 'settings.set'>;

export function registerAppHandlers(deps: {
  info: AppInfo;
  settings: SettingsStore;
  hub: EventHub;
}): AppHandlers {
  return {
    'app.info': () => deps.info,
    'settings.get': () => deps.settings.get(),
    'settings.set': (patch) => {
      const next = deps.settings.set(patch);
      deps.hub.emit('store.changed', { topic: 'settings' });
      return next;
    },
  };
}
