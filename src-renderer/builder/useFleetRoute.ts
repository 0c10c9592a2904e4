import { onScopeDispose, ref, type Ref } from 'vue';

/** `#/fleets/<id>` opens a fleet in the builder; `#/fleets/new` a new one; `#/fleets` the list. */
function fleetFromHash(hash: string): string | null {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] !== 'fleets' || !parts[1]) return null;
  try {
    return decodeURIComponent(parts.slice(1).join('/'));
  } catch {
    return null;
  }
}

export function useFleetRoute(): {
  fleetId: Ref<string | null>;
  openFleet(id: string | null, options?: { replace?: boolean }): void;
} {
  const fleetId = ref(fleetFromHash(window.location.hash));
  const onHashChange = () => {
    fleetId.value = fleetFromHash(window.location.hash);
  };
  window.addEventListener('hashchange', onHashChange);
  onScopeDispose(() => window.removeEventListener('hashchange', onHashChange));
  return {
    fleetId,
    openFleet(id, options = {}) {
      const hash = id ? `#/fleets/${encodeURIComponent(id)}` : '#/fleets';
      if (options.replace) window.history.replaceState(null, '', hash);
      else window.location.hash = hash;
      fleetId.value = id;
    },
  };
}
