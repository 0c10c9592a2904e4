import { defineStore } from 'pinia';
import { ref } from 'vue';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
  /** An optional link, e.g. to download an export in the browser surface. */
  link?: { href: string; label: string };
}

/** Short notices in a corner; errors also stay where they happened. */
export const useToastStore = defineStore('toasts', () => {
  const toasts = ref<Toast[]>([]);
  let nextId = 1;

  function dismiss(id: number): void {
    toasts.value = toasts.value.filter((toast) => toast.id !== id);
  }

  function push(text: string, kind: Toast['kind'] = 'error', timeoutMs = 6000, link?: Toast['link']): number {
    const id = nextId++;
    toasts.value = [...toasts.value.slice(-4), { id, kind, text, ...(link ? { link } : {}) }];
    if (timeoutMs > 0) setTimeout(() => dismiss(id), timeoutMs);
    return id;
  }

  return { toasts, push, dismiss };
});
