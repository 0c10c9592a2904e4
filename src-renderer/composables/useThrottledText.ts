import { onBeforeUnmount, ref, watch, type Ref } from 'vue';

/**
 * `source()` as a ref that, while `throttled()` holds, changes at most once per `intervalMs`
 * (the latest text is shown when the interval ends). Live streams grow a few characters per
 * event; following every frame re-lays-out and repaints each streaming row 60 times a second.
 * When `throttled()` is false (a seek, a completed message) the text follows at once.
 */
export function useThrottledText(
  source: () => string,
  throttled: () => boolean,
  intervalMs: number,
): Readonly<Ref<string>> {
  const shown = ref(source());
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  function flush(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    last = performance.now();
    shown.value = source();
  }
  watch(source, () => {
    const wait = last + intervalMs - performance.now();
    if (!throttled() || wait <= 0) flush();
    else timer ??= setTimeout(flush, wait);
  });
  onBeforeUnmount(() => {
    if (timer !== null) clearTimeout(timer);
  });
  return shown;
}
