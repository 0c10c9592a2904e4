import type { AppInfo } from '@shared/contract';
import type { SettingsStore } from '../../history/settings-store';
import type { EventHub } from '../delivery/event-hub';
import type { Handlers } from './dispatcher';
import type { RetentionService } from '../services/retention';

type AppHandlers = Pick<Handlers, 'app.info' | 'settings.get' | 'settings.set' | 'settings.retentionPreview'>;

export function registerAppHandlers(deps: {
  info: AppInfo;
  settings: SettingsStore;
  hub: EventHub;
  retention: RetentionService;
  /** True where retention runs (long-lived hosts): a confirmed change applies at once. */
  applyRetention: boolean;
}): AppHandlers {
  return {
    'app.info': () => deps.info,
    'settings.get': () => deps.settings.get(),
    'settings.set': (patch) => {
      const next = deps.settings.set(patch);
      // The Settings page saves a number of days only after showing what it deletes.
      if (patch.retentionDays !== undefined) {
        deps.retention.confirm(patch.retentionDays);
        if (deps.applyRetention) deps.retention.apply();
      }
      deps.hub.emit('store.changed', { topic: 'settings' });
      return next;
    },
    'settings.retentionPreview': (input) => deps.retention.preview(input.days),
  };
}
