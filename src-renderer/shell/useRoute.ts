import { onScopeDispose, ref, type Ref } from 'vue';
import { compareFromHash, type CompareRoute } from '../compare/compare-route';

export const PAGES = ['sessions', 'fleets', 'settings'] as const;
export type Page = (typeof PAGES)[number];

function pageFromHash(hash: string): Page {
  const name = hash.replace(/^#\/?/, '').split('/')[0];
  return (PAGES as readonly string[]).includes(name ?? '') ? (name as Page) : 'sessions';
}

/** `#/sessions/<id>` opens one session. */
function sessionFromHash(hash: string): string | null {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] !== 'sessions' || !parts[1]) return null;
  try {
    return decodeURIComponent(parts[1]);
  } catch {
    return null;
  }
}

/** The current page (and open session), kept in the URL hash so reloads and back/forward keep it. */
export function useRoute(): {
  page: Ref<Page>;
  sessionId: Ref<string | null>;
  /** `#/compare/<a>/<b>`: two sessions side by side (shown on the Sessions page). */
  compare: Ref<CompareRoute | null>;
  go(page: Page): void;
  openSession(id: string | null): void;
} {
  const page = ref<Page>(pageFromHash(window.location.hash));
  const sessionId = ref<string | null>(sessionFromHash(window.location.hash));
  const compare = ref<CompareRoute | null>(compareFromHash(window.location.hash));
  const onHashChange = () => {
    page.value = pageFromHash(window.location.hash);
    sessionId.value = sessionFromHash(window.location.hash);
    compare.value = compareFromHash(window.location.hash);
  };
  window.addEventListener('hashchange', onHashChange);
  onScopeDispose(() => window.removeEventListener('hashchange', onHashChange));
  return {
    page,
    sessionId,
    compare,
    go(next) {
      window.location.hash = `#/${next}`;
      page.value = next;
      sessionId.value = null;
      compare.value = null;
    },
    openSession(id) {
      window.location.hash = id ? `#/sessions/${encodeURIComponent(id)}` : '#/sessions';
      page.value = 'sessions';
      sessionId.value = id;
      compare.value = null;
    },
  };
}
