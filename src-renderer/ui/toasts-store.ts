import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

export type ToastKind = 'error' | 'info' | 'progress';

export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
  /** For a progress toast: 0..1 when the total is known, null while it is not. */
  fraction?: number | null;
}

/** Notices kept at most; older ones fall off the bottom of the stack. */
const MAX_KEPT = 20;

/** A long task's one toast: updated in place while it runs, then settled as done or failed. */
export interface ProgressToast {
  readonly id: number;
  update(text: string, fraction: number | null): void;
  /** Ends the task: the toast becomes a plain notice that goes away after `timeoutMs`. */
  settle(text: string, kind: 'info' | 'error', timeoutMs?: number): void;
}

/**
 * Short notices in a corner, stacked into one card: the newest notice with a count of the
 * others (which open on demand). Errors also stay where they happened.
 */
export const useToastStore = defineStore('toasts', () => {
  const toasts = ref<Toast[]>([]);
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  let nextId = 1;

  /** The newest notice, shown on the card. */
  const newest = computed<Toast | null>(() => toasts.value.at(-1) ?? null);
  const count = computed(() => toasts.value.length);

  function clearTimer(id: number): void {
    const timer = timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.delete(id);
  }

  function expireAfter(id: number, timeoutMs: number): void {
    clearTimer(id);
    if (timeoutMs > 0)
      timers.set(
        id,
        setTimeout(() => dismiss(id), timeoutMs),
      );
  }

  function dismiss(id: number): void {
    clearTimer(id);
    toasts.value = toasts.value.filter((toast) => toast.id !== id);
  }

  /** Dismisses every notice except running tasks, which stay until they settle. */
  function dismissAll(): void {
    for (const toast of toasts.value) if (toast.kind !== 'progress') clearTimer(toast.id);
    toasts.value = toasts.value.filter((toast) => toast.kind === 'progress');
  }

  function add(toast: Toast): void {
    const kept = toasts.value.length >= MAX_KEPT ? dropOldest(toasts.value) : toasts.value;
    toasts.value = [...kept, toast];
  }

  /** The oldest notice that is not a running task falls off. */
  function dropOldest(list: Toast[]): Toast[] {
    const index = list.findIndex((toast) => toast.kind !== 'progress');
    if (index < 0) return list;
    clearTimer(list[index]!.id);
    return [...list.slice(0, index), ...list.slice(index + 1)];
  }

  function push(text: string, kind: 'error' | 'info' = 'error', timeoutMs = 6000): number {
    const id = nextId++;
    add({ id, kind, text });
    expireAfter(id, timeoutMs);
    return id;
  }

  /** A toast for a task that reports progress; it stays until settled. */
  function progress(text: string): ProgressToast {
    const id = nextId++;
    add({ id, kind: 'progress', text, fraction: null });
    const patch = (change: Partial<Toast>) => {
      // Updated in place: a task keeps its place in the stack.
      toasts.value = toasts.value.map((toast) => (toast.id === id ? { ...toast, ...change } : toast));
    };
    return {
      id,
      update: (next, fraction) => patch({ text: next, fraction }),
      settle: (next, kind, timeoutMs = kind === 'error' ? 10_000 : 6000) => {
        // The outcome is news: it moves to the top of the stack.
        const rest = toasts.value.filter((toast) => toast.id !== id);
        toasts.value = [...rest, { id, kind, text: next }];
        expireAfter(id, timeoutMs);
      },
    };
  }

  return { toasts, newest, count, push, progress, dismiss, dismissAll };
});
