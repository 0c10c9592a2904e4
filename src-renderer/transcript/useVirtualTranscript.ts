import { computed, watch, type ComputedRef, type Ref } from 'vue';
import {
  measureElement,
  observeElementOffset,
  useVirtualizer,
  type VirtualItem,
  type Virtualizer,
} from '@tanstack/vue-virtual';
import type { RowSource } from './thread-index';
import type { RowView } from './useTranscriptRows';

/** Pixels assumed for a row not measured yet (a one-line message with its header). */
const ESTIMATED_ROW = 84;
/** Within this many pixels of the end, the list counts as pinned to it. */
const PIN_SLACK = 80;

export interface VirtualTranscriptOptions {
  scroller: Ref<HTMLElement | null>;
  rows: ComputedRef<RowSource>;
  viewOf(position: number): RowView | null;
  /** True while the playhead follows the end of the log. */
  following: Ref<boolean>;
  /** The playhead's seq: a seek while replaying keeps a pinned list at its end. */
  seq: () => number | undefined;
}

export interface VirtualTranscript {
  /** The rows to draw now, with their offsets. */
  virtualRows: ComputedRef<{ item: VirtualItem; view: RowView | null }[]>;
  /** Height of the whole list in pixels. */
  totalSize: ComputedRef<number>;
  /** Template ref callback: measures a drawn row. */
  measure(element: unknown): void;
  /** Scroll listener: tracks whether the user left the end of the list. */
  onScroll(): void;
  /** Unpins the list and centres row `position` (a search match). */
  reveal(position: number): void;
}

/**
 * The transcript's virtual list: only the rows in view (plus a few) are drawn, and a list scrolled
 * to its end stays pinned there while live rows arrive, unless the user scrolled up.
 */
export function useVirtualTranscript(options: VirtualTranscriptOptions): VirtualTranscript {
  const { scroller, rows, following } = options;
  /** The virtualizer's own scroll-offset callback, kept so a pin can move it before a render. */
  let reportOffset: ((offset: number, isScrolling: boolean) => void) | null = null;
  const virtualizer = useVirtualizer(
    computed(() => {
      const source = rows.value;
      return {
        count: source.length,
        getScrollElement: () => scroller.value,
        estimateSize: () => ESTIMATED_ROW,
        // A seek lands on rows never drawn before, and each drawn row is a MessageItem to mount
        // (markdown, sanitizing): 3 rows either side covers a wheel step at a lower cost per seek.
        overscan: 3,
        initialRect: { width: 600, height: 600 },
        observeElementOffset: (
          instance: Virtualizer<HTMLElement, Element>,
          report: (offset: number, isScrolling: boolean) => void,
        ) => {
          reportOffset = report;
          return observeElementOffset(instance, report);
        },
        // Sizes come from the ResizeObserver entry (read after layout); without one (a row just
        // mounted) the cached size or the estimate stands in, instead of reading offsetHeight,
        // which forces a layout in the middle of the render.
        measureElement: (
          element: Element,
          entry: ResizeObserverEntry | undefined,
          instance: Virtualizer<HTMLElement, Element>,
        ) =>
          entry
            ? measureElement(element, entry, instance)
            : (instance.itemSizeCache.get(instance.options.getItemKey(instance.indexFromElement(element))) ??
              ESTIMATED_ROW),
        // The log index: stable across seeks, so measured sizes are kept (called for every row).
        getItemKey: (position: number) => source.indexAt(position),
      };
    }),
  );
  const virtualRows = computed(() =>
    virtualizer.value.getVirtualItems().map((item) => ({ item, view: options.viewOf(item.index) })),
  );
  const totalSize = computed(() => virtualizer.value.getTotalSize());

  function measure(element: unknown): void {
    if (element instanceof Element) virtualizer.value.measureElement(element);
  }

  /** Stays pinned to the newest message while live, unless the user scrolled up. */
  let pinned = true;
  function onScroll(): void {
    const element = scroller.value;
    if (!element) return;
    pinned = element.scrollHeight - element.scrollTop - element.clientHeight < PIN_SLACK;
  }

  /**
   * Keeps a pinned list at its end when the rows change (live growth, a seek, a selection). Runs
   * before the render: when the virtualizer already has the new row count, it is told the end
   * offset first (through its own offset callback), so the rows drawn are the last ones and a
   * seek renders once instead of once at the old offset and again after the scroll event. The
   * element is scrolled in the next frame, when the sizer has its new height; scrollToIndex then
   * keeps the end in view while the new rows are measured.
   */
  function pinToEnd(): void {
    const count = rows.value.length;
    if (!pinned || count === 0) return;
    const instance = virtualizer.value;
    if (instance.options.count === count && reportOffset)
      reportOffset(Math.max(0, instance.getTotalSize() - (instance.scrollRect?.height ?? 0)), false);
    // In the next animation frame, where the layout this needs is due anyway (in the render it
    // would force an extra one).
    requestAnimationFrame(() => {
      if (pinned && rows.value.length > 0)
        virtualizer.value.scrollToIndex(rows.value.length - 1, { align: 'end' });
    });
  }
  watch(
    () => rows.value.length,
    (length, before) => {
      if (!following.value && length < (before ?? 0)) return;
      pinToEnd();
    },
  );
  watch(options.seq, () => {
    if (!following.value) pinToEnd();
  });

  function reveal(position: number): void {
    pinned = false;
    virtualizer.value.scrollToIndex(position, { align: 'center' });
  }

  return { virtualRows, totalSize, measure, onScroll, reveal };
}
