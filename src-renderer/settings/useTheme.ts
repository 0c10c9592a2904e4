import { onScopeDispose, ref, watchEffect, type Ref } from 'vue';
import type { Settings } from '@shared/contract';

/** Applies the chosen theme to <html data-theme>, following the OS when set to "system". */
export function useTheme(choice: Ref<Settings['theme']>): Ref<'light' | 'dark'> {
  const media = window.matchMedia?.('(prefers-color-scheme: dark)');
  const osDark = ref(media?.matches ?? false);
  const onChange = (event: MediaQueryListEvent) => {
    osDark.value = event.matches;
  };
  media?.addEventListener?.('change', onChange);
  onScopeDispose(() => media?.removeEventListener?.('change', onChange));

  const applied = ref<'light' | 'dark'>('light');
  watchEffect(() => {
    applied.value = choice.value === 'system' ? (osDark.value ? 'dark' : 'light') : choice.value;
    document.documentElement.dataset.theme = applied.value;
  });
  return applied;
}
