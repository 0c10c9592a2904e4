import { onBeforeUnmount, onMounted, type Ref } from 'vue';

/**
 * Keeps toasts clear of a bar docked at the bottom of the window (the replay controls): while
 * `element` is mounted, `--toast-bottom` on the document puts the toast stack just above it.
 */
export function useToastClearance(element: Ref<HTMLElement | null>): void {
  const root = document.documentElement;
  const place = () => {
    const bar = element.value;
    if (!bar) return;
    const clearance = Math.max(0, window.innerHeight - bar.getBoundingClientRect().top) + 8;
    root.style.setProperty('--toast-bottom', `${Math.round(clearance)}px`);
  };
  let observer: ResizeObserver | null = null;
  onMounted(() => {
    place();
    observer = new ResizeObserver(place);
    if (element.value) observer.observe(element.value);
    window.addEventListener('resize', place);
  });
  onBeforeUnmount(() => {
    observer?.disconnect();
    window.removeEventListener('resize', place);
    root.style.removeProperty('--toast-bottom');
  });
}
