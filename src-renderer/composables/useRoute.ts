import { onScopeDispose, ref, type Ref } from 'vue';

export const PAGES = ['sessions', 'fleets', 'settings'] as const;
export type Page = (typeof PAGES)[number];

function pageFromHash(hash: string): Page {
  const name = hash.replace(/^#\/?/, '').split('/')[0];
  return (PAGES as readonly string[]).includes(name ?? '') ? (name as Page) : 'sessions';
}

/** The current page, kept in the URL hash so reloads and back/forward keep it. */
export function useRoute(): { page: Ref<Page>; go(page: Page): void } {
  const page = ref<Page>(pageFromHash(window.location.hash));
  const onHashChange = () => {
    page.value = pageFromHash(window.location.hash);
  };
  window.addEventListener('hashchange', onHashChange);
  onScopeDispose(() => window.removeEventListener('hashchange', onHashChange));
  return {
    page,
    go(next) {
      window.location.hash = `#/${next}`;
      page.value = next;
    },
  };
}
