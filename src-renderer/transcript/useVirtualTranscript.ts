import { computed, onScopeDispose, watch, type ComputedRef, type Ref } from 'vue';
import { useVirtualizer, type VirtualItem, type Virtualizer } from '@tanstack/vue-virtual';
import type { RowSource } from './thread-index';
import type { RowView } from './useTranscriptRows';
import { RowMeasurer } from './row-measurer';

/** Pixels assumed for a row not measured yet (a one-line message with its header). */
const ESTIMATED_ROW = 84;
/** Within this many pixels of the end, the list counts as pinned to it. */
const PIN_SLACK = 80;
/** A scroll event this soon after the list scrolled itself is that scroll (one frame, with slack). */
const OWN_SCROLL_MS = 100;
/**
 * For this long after the user's last wheel, touch, pointer or key input in the list, and after
 * the last scroll it made, the list does not scroll itself at all (no pin, no keeping rows still):
 * a write to scrollTop would cancel or cut short a scroll the browser is still making for that input
 * (a wheel notch, an End key, a fling). Then the scroll has settled and decides whether it is pinned.
 */
const USER_SCROLL_MS = 250;
/** Pixels a wheel line is taken to be (deltaMode 1; Chromium reports pixels) and an arrow key scrolls. */
const LINE_PX = 40;

export interface VirtualTranscriptOptions {
  scroller: Ref<HTMLElement | null>;
  /** The element as tall as the whole list (the rows are positioned inside it). */
  sizer: Ref<HTMLElement | null>;
  rows: ComputedRef<RowSource>;
  viewOf(position: number): RowView | null;
  /** True while the playhead follows the end of the log. */
  following: Ref<boolean>;
  /** The playhead's seq: a seek while replaying keeps a pinned list at its end. */
  seq: () => number | undefined;
  /** The session shown: another one starts pinned to its end, whatever the last one's list did. */
  session: () => string | null;
}

export interface VirtualTranscript {
  /** The rows to draw now, with their offsets. */
  virtualRows: ComputedRef<{ item: VirtualItem; view: RowView | null }[]>;
  /** Height of the whole list in pixels. */
  totalSize: ComputedRef<number>;
  /** Template ref callback: measures a drawn row (its `data-index` is its position). */
  measure(element: unknown): void;
  /** Unpins the list and centres row `position` (a search match). */
  reveal(position: number): void;
}

/**
 * The transcript's virtual list: only the rows in view (plus a few) are drawn, and a list scrolled
 * to its end stays pinned there while live rows arrive and grow, unless the user scrolled up.
 *
 * Layout is read and the list scrolled only where the page's layout is already clean: row sizes
 * come from one ResizeObserver (its callback runs right after the browser's own layout, once per
 * frame for every row that changed), and in that same callback the list is kept at its end (or,
 * when the user scrolled up, kept still over rows growing above it). The sizer is given its new
 * height there first, so the scroll write lays out only the transcript (its scroller is contained)
 * and lands in the frame the rows grew. Nothing on the live path reads scrollHeight or calls the
 * virtualizer's scroll commands (whose reconciling reads layout from animation frames, after the
 * rest of the page changed).
 */
export function useVirtualTranscript(options: VirtualTranscriptOptions): VirtualTranscript {
  const { scroller, sizer, rows, following } = options;
  /** The virtualizer's own scroll-offset callback, kept so a pin can move it before a render. */
  let reportOffset: ((offset: number, isScrolling: boolean) => void) | null = null;
  /** The scroller's offset as last read in a scroll event or written here. */
  let elementOffset = 0;
  /** Stays pinned to the newest message, unless the user scrolled up. */
  let pinned = true;
  /** When the user last gave the list wheel, touch, pointer or key input, or last scrolled it. */
  let userInputAt = -Infinity;
  /**
   * The user's scroll under way: where it started and how far its input asked to go (wheel deltas,
   * keys; +Infinity for End). A scroll that stops short of a downward target stopped at the end.
   */
  let gesture: { from: number; intended: number; moved: boolean } | null = null;
  /** A pointer (scrollbar thumb, touch, middle-click) is held down in the list. */
  let pointerHeld = false;

  /** While the user scrolls, the list leaves scrollTop alone. */
  function userScrolling(): boolean {
    return pointerHeld || gesture !== null || performance.now() - userInputAt < USER_SCROLL_MS;
  }

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
          return observeScroll(instance, report);
        },
        // The log index: stable across seeks, so measured sizes are kept (called for every row).
        getItemKey: (position: number) => source.indexAt(position),
      };
    }),
  );
  // Growth is compensated by the measurer below, not by the virtualizer (whose correction writes
  // the scroll position once per row, before the sizer has grown).
  virtualizer.value.shouldAdjustScrollPositionOnItemSizeChange = () => false;
  const virtualRows = computed(() =>
    virtualizer.value.getVirtualItems().map((item) => ({ item, view: options.viewOf(item.index) })),
  );
  const totalSize = computed(() => virtualizer.value.getTotalSize());

  /** The scroller's height as last reported to the measurer (before the virtualizer may know it). */
  let viewportHeight: number | null = null;

  /** The offset that shows the end of the list, from the virtualizer's sizes (no layout read). */
  function endOffset(instance: Virtualizer<HTMLElement, Element>): number {
    return Math.max(0, instance.getTotalSize() - (viewportHeight ?? instance.scrollRect?.height ?? 0));
  }

  /** When the list last scrolled itself: the scroll event that follows is known to be at `elementOffset`. */
  let ownScrollAt = -Infinity;
  /** When the list last wrote scrollTop (kept after its scroll event, unlike `ownScrollAt`). */
  let ownWriteAt = -Infinity;

  /** Scrolls the element to `offset` and tells the virtualizer, so it draws the rows there. */
  function scrollTo(element: HTMLElement, offset: number): void {
    element.scrollTop = offset;
    elementOffset = offset;
    ownScrollAt = ownWriteAt = performance.now();
    reportOffset?.(offset, false);
  }

  /** How far a key press in the list scrolls it (the browser's own steps, roughly), if it does. */
  function keyIntent(event: KeyboardEvent): number {
    const page = viewportHeight ?? 600;
    switch (event.key) {
      case 'End':
        return Infinity;
      case 'Home':
        return -Infinity;
      case 'PageDown':
        return page;
      case 'PageUp':
        return -page;
      case ' ':
        return event.shiftKey ? -page : page;
      case 'ArrowDown':
        return LINE_PX;
      case 'ArrowUp':
        return -LINE_PX;
      default:
        return 0;
    }
  }

  /**
   * The virtualizer's scroll listener. A scroll event that follows the list's own pin (and no
   * wheel, touch, pointer or key input) is at the offset written, so it is not read again and is
   * reported at rest: reading scrollTop or scrollHeight in a scroll event lays out the whole page
   * when anything else changed it since the last frame. Any other scroll (the user's, the
   * virtualizer's own) is read; once it has settled (no input or scroll for USER_SCROLL_MS, no
   * pointer held) it is reported at rest and decides whether the list is pinned: it is when it ended
   * near the end, or short of where a downward input would have taken it (the browser stopped it at
   * the end as it was then, while rows kept growing).
   */
  function observeScroll(
    instance: Virtualizer<HTMLElement, Element>,
    report: (offset: number, isScrolling: boolean) => void,
  ): (() => void) | undefined {
    const element = instance.scrollElement;
    if (!element) return undefined;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;
    const settleLater = () => {
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, USER_SCROLL_MS);
    };
    const settle = () => {
      if (pointerHeld) return; // its release settles it
      report(elementOffset, false);
      const scrolled = gesture;
      gesture = null;
      const end = endOffset(instance);
      // Input that scrolled nothing (a click, a key) leaves the pin as it was.
      if (scrolled?.moved) {
        const target = scrolled.from + scrolled.intended;
        const stoppedShort = scrolled.intended > 0 && elementOffset < target - 1;
        pinned = end - elementOffset < PIN_SLACK || stoppedShort;
        // An input that reached past the top (a long wheel, Home) ends at the top. The browser may
        // have scrolled it from where it last drew the list, not from the pin written here just
        // before, and then stops as far below the top as the list grew in between.
        if (!pinned && scrolled.intended < 0 && target <= 0 && elementOffset >= 1) scrollTo(element, 0);
      }
      if (pinned && Math.abs(end - elementOffset) >= 1) scrollTo(element, end);
    };
    const onInput = (event: Event) => {
      ownScrollAt = -Infinity;
      userInputAt = performance.now();
      gesture ??= { from: elementOffset, intended: 0, moved: false };
      let delta = 0;
      if (event instanceof WheelEvent) {
        const unit = event.deltaMode === 1 ? LINE_PX : event.deltaMode === 2 ? (viewportHeight ?? 600) : 1;
        delta = event.deltaY * unit;
      } else if (event instanceof KeyboardEvent) delta = keyIntent(event);
      else if (event.type === 'pointerdown') pointerHeld = true;
      // Turned back: the new direction is measured from where the list is now, not summed with the
      // last (a wheel down that the end stopped, then one up as long, would add up to nowhere).
      if (delta !== 0 && Math.sign(delta) === -Math.sign(gesture.intended)) {
        gesture.from = elementOffset;
        gesture.intended = 0;
      }
      gesture.intended += delta;
      settleLater();
    };
    const onRelease = () => {
      if (!pointerHeld) return;
      pointerHeld = false;
      settleLater();
    };
    const onScroll = () => {
      const own = performance.now() - ownScrollAt < OWN_SCROLL_MS && userInputAt < ownScrollAt;
      ownScrollAt = -Infinity;
      // At rest, as the pin reported it (a scroll "in progress" makes the virtualizer read the
      // scroll height).
      if (own) return report(elementOffset, false);
      // The list's own scroll, its event late (a loaded machine can take longer than OWN_SCROLL_MS
      // to a frame): no input since the write and the scroller where it was put. Taken for the
      // user's, it would hold the pin off while rows grow and then find the list short of the end.
      if (userInputAt < ownWriteAt && Math.abs(element.scrollTop - elementOffset) < 1)
        return report(elementOffset, false);
      gesture ??= { from: elementOffset, intended: 0, moved: false };
      gesture.moved = true;
      elementOffset = element.scrollTop;
      pinned = endOffset(instance) - elementOffset < PIN_SLACK;
      report(elementOffset, true);
      settleLater();
    };
    const inputs = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const;
    const releases = ['pointerup', 'pointercancel', 'blur'] as const;
    element.addEventListener('scroll', onScroll, { passive: true });
    for (const type of inputs) element.addEventListener(type, onInput, { passive: true });
    // A pointer is often let go of outside the list (a scrollbar thumb dragged past it).
    for (const type of releases) window.addEventListener(type, onRelease, { passive: true });
    return () => {
      element.removeEventListener('scroll', onScroll);
      for (const type of inputs) element.removeEventListener(type, onInput);
      for (const type of releases) window.removeEventListener(type, onRelease);
      clearTimeout(settleTimer);
    };
  }

  const measurer = new RowMeasurer((sizes, viewport) => {
    if (viewport !== null) viewportHeight = viewport;
    const instance = virtualizer.value;
    instance.getVirtualItems(); // brings measurementsCache up to date (memoized)
    const measurements = instance.measurementsCache;
    let shift = 0;
    for (const [position, size] of sizes) {
      const item = measurements[position];
      if (!item || item.size === size) continue;
      const firstMeasure = !instance.itemSizeCache.has(item.key);
      // Rows above the view (a first measure: starting above it) grow without moving what is read.
      if (firstMeasure ? item.start < elementOffset : item.end <= elementOffset) shift += size - item.size;
      instance.resizeItem(position, size);
    }
    const element = scroller.value;
    if (!element) return;
    const box = sizer.value;
    if (box) box.style.height = `${instance.getTotalSize()}px`;
    // While the user scrolls, the browser's scroll is still to come or under way: a write would
    // undo it or cut it short (rows growing above move the view a little instead, until it settles).
    if (userScrolling()) return;
    const target = pinned ? endOffset(instance) : shift !== 0 ? Math.max(0, elementOffset + shift) : null;
    if (target !== null && Math.abs(target - elementOffset) >= 1) scrollTo(element, target);
  });
  onScopeDispose(() => measurer.disconnect());
  watch(scroller, (element) => element && measurer.observeViewport(element), { immediate: true });

  function measure(element: unknown): void {
    if (element instanceof HTMLElement) measurer.observe(element);
  }

  /**
   * Keeps a pinned list at its end when the rows change (live growth, a seek, a selection). Runs
   * before the render: when the virtualizer already has the new row count, it is told the end
   * offset first (through its own offset callback), so the rows drawn are the last ones and a
   * seek renders once. The element itself is scrolled when the rows drawn there are measured.
   */
  function pinToEnd(): void {
    const count = rows.value.length;
    if (!pinned || count === 0 || userScrolling()) return;
    const instance = virtualizer.value;
    if (instance.options.count === count) reportOffset?.(endOffset(instance), false);
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

  /**
   * Pins the list again: another session is shown (the list's scroll position and the user's
   * scrolling belonged to the last one), or the playhead follows the live end again (End, "live").
   */
  function repin(): void {
    pinned = true;
    userInputAt = -Infinity;
    gesture = null;
    pointerHeld = false;
    pinToEnd();
    const element = scroller.value;
    const instance = virtualizer.value;
    if (element && instance.options.count === rows.value.length) scrollTo(element, endOffset(instance));
  }
  watch(options.session, repin, { flush: 'post' });
  watch(following, (now) => now && repin(), { flush: 'post' });

  function reveal(position: number): void {
    pinned = false;
    ownScrollAt = -Infinity;
    virtualizer.value.scrollToIndex(position, { align: 'center' });
  }

  return { virtualRows, totalSize, measure, reveal };
}
