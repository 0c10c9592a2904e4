import { onBeforeUnmount, watch, type Ref, type WatchSource } from 'vue';

/** Within this many pixels of the bottom, the lens follows the playhead. */
const PIN_SLACK = 40;

export interface LaneFollowOptions {
  scroller: Ref<HTMLElement | null>;
  /** The scroller's scrollTop as the lens last set or saw it (see LanesView). */
  scrollY: Ref<number>;
  /** The scrollTop of the pane's bottom, from the heights the lens knows (never the layout). */
  bottom: () => number;
  /** What moves the bottom (the rows' height, the pane's height, the model). */
  moves: WatchSource[];
  /** The session shown; another one is followed from its bottom again. */
  sessionId: WatchSource<string | null | undefined>;
  /** The playhead follows the live end (End, "live"): the lens follows the bottom again. */
  following: Ref<boolean>;
}

/**
 * Follows the playhead (the bottom) unless the user scrolled away or picked a row. Works from the
 * heights it knows (never reads the layout), and scrolls only when the bottom moved: the rows are
 * drawn once, for the new bottom, and the pane is scrolled there in the next frame, before it is
 * painted.
 */
export function useLaneFollow({ scroller, scrollY, bottom, moves, sessionId, following }: LaneFollowOptions) {
  let pinned = true;
  /** A scroll to the bottom waiting for the next frame (see pinToEnd). */
  let pendingPin: number | null = null;
  /** The scrollTop the pane last had as far as the lens knows (it set it, or a scroll event said). */
  let shownTop = 0;

  function onScroll(): void {
    const element = scroller.value;
    // While a scroll to the end waits for its frame, that frame looks at what the user did: reading
    // the offset here would lay out the page a seek has just changed once more than the frame does.
    if (!element || pendingPin !== null) return;
    const top = element.scrollTop;
    shownTop = top;
    scrollY.value = top;
    // At the end the pane shows, it follows even when the lens's heights already hold a row the
    // page has not drawn yet: compared with those alone, a scroll to the end made just as a row
    // came was taken for a scroll up, and the lens stopped following for good (the layout is read
    // only then, off the path of a pane that follows).
    pinned = bottom() - top < PIN_SLACK || element.scrollHeight - element.clientHeight - top < PIN_SLACK;
  }

  function pinToEnd(): void {
    const target = bottom();
    if (!pinned || Math.abs(target - scrollY.value) < 1) return;
    scrollY.value = target;
    // Scrolled in the next frame, just before it is laid out: setting scrollTop lays the page out,
    // so set now it would lay it out once more than the frame does.
    if (pendingPin !== null) cancelAnimationFrame(pendingPin);
    pendingPin = requestAnimationFrame(() => {
      pendingPin = null;
      const element = scroller.value;
      if (!element || !pinned) return;
      // Lays the page out, as the scroll below needs anyway (then it costs no second layout). The
      // end is the pane's own (its size may have changed since it was last measured).
      const top = element.scrollTop;
      const end = element.scrollHeight - element.clientHeight;
      if (top < shownTop - 1 && end - top >= PIN_SLACK) {
        // The user scrolled up away from the end meanwhile (not the browser moving a shorter lens
        // to its new end): stop following and draw what they see.
        pinned = false;
        shownTop = top;
        scrollY.value = top;
        return;
      }
      element.scrollTop = scrollY.value;
      shownTop = scrollY.value;
    });
  }
  onBeforeUnmount(() => {
    if (pendingPin !== null) cancelAnimationFrame(pendingPin);
  });
  watch(moves, pinToEnd, { immediate: true });

  /**
   * Follows the bottom again when another session is shown (the last one's scrolling was about its
   * rows) or the playhead follows the live end again (End, "live").
   */
  function repin(): void {
    pinned = true;
    // Nothing the user did since counts as scrolling up (see pinToEnd), and the scroll is made anew.
    shownTop = 0;
    scrollY.value = -1;
    pinToEnd();
  }
  watch(sessionId, () => repin());
  watch(following, (now) => now && repin());

  return {
    onScroll,
    /** The pane is in the page: rows drawn before it was were drawn for the bottom, scroll there. */
    mounted(element: HTMLElement): void {
      if (pinned) element.scrollTop = shownTop = scrollY.value;
    },
    /** The lens scrolled the pane to `top` itself. */
    scrolledTo(top: number): void {
      shownTop = top;
    },
    /** A row was picked: stop following until the user returns to the end. */
    stop(): void {
      pinned = false;
    },
  };
}
