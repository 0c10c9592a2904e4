import { onBeforeUnmount, ref, type Ref } from 'vue';

/**
 * The theme <html data-theme> shows now, kept up to date. For colours that must be concrete
 * values rather than CSS variables (SVG attributes such as the minimap's mask).
 */
export function useDocumentTheme(): Readonly<Ref<'light' | 'dark'>> {
  const read = (): 'light' | 'dark' => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');
  const theme = ref(read());
  if (typeof MutationObserver === 'undefined') return theme;
  const observer = new MutationObserver(() => (theme.value = read()));
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  onBeforeUnmount(() => observer.disconnect());
  return theme;
}
