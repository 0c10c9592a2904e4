import { defineAsyncComponent } from 'vue';

/**
 * The views the first page does not need, each in a chunk of its own so the first route's
 * JavaScript stays small (test/e2e/bundle-size.test.ts holds it under 500 KB): the session view
 * (graph, lanes, transcript with markdown and highlighting), the fleet builder, settings and the
 * compare view. `prefetchViews` fetches them once the first page is idle, so opening one later
 * does not wait for the network.
 */
const loaders = {
  session: () => import('./session-view/SessionView.vue'),
  fleets: () => import('./builder/FleetsView.vue'),
  settings: () => import('./settings/SettingsView.vue'),
  compare: () => import('./compare/CompareView.vue'),
};

export const SessionView = defineAsyncComponent(loaders.session);
export const FleetsView = defineAsyncComponent(loaders.fleets);
export const SettingsView = defineAsyncComponent(loaders.settings);
export const CompareView = defineAsyncComponent(loaders.compare);

let prefetched = false;

/** Loads every lazy view's chunk when the page is idle (once); failures surface on first use. */
export function prefetchViews(): void {
  if (prefetched) return;
  prefetched = true;
  const fetchAll = () => {
    for (const load of Object.values(loaders)) load().catch(() => undefined);
  };
  if (typeof window.requestIdleCallback === 'function')
    window.requestIdleCallback(fetchAll, { timeout: 2000 });
  else setTimeout(fetchAll, 200);
}
