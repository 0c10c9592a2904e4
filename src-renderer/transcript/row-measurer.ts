/** Past this many rows observed, the ones that left the page are let go of. */
const SWEEP_AT = 256;

/**
 * Measures drawn rows with one ResizeObserver. Its callback runs after the browser's layout, so
 * sizes are read from the observer's entries without forcing a layout, once per frame for all
 * rows that changed (a row is reported when first drawn and whenever its height changes). Each
 * row carries its position in `data-index`, read when it is reported (so a row that moved to
 * another position is measured for the one it has now).
 */
export class RowMeasurer {
  private observer: ResizeObserver | null = null;
  private readonly observed = new Set<Element>();
  private viewport: Element | null = null;

  /**
   * `onSizes` gets the heights of the rows reported, by position, and the viewport's height when
   * it changed.
   */
  constructor(private readonly onSizes: (sizes: Map<number, number>, viewport: number | null) => void) {}

  observe(element: HTMLElement): void {
    if (this.observed.has(element) || typeof ResizeObserver === 'undefined') return;
    if (this.observed.size >= SWEEP_AT) this.sweep();
    this.observer ??= new ResizeObserver((entries) => this.report(entries));
    this.observer.observe(element);
    this.observed.add(element);
  }

  /** Also reports the scroller's height (a list pinned to its end stays there as it resizes). */
  observeViewport(element: HTMLElement): void {
    if (this.viewport === element || typeof ResizeObserver === 'undefined') return;
    this.observer ??= new ResizeObserver((entries) => this.report(entries));
    if (this.viewport) this.observer.unobserve(this.viewport);
    this.observer.observe(element);
    this.viewport = element;
  }

  /** Stops observing rows no longer in the page (a removed row is usually reported, not always). */
  private sweep(): void {
    for (const element of this.observed)
      if (!element.isConnected) {
        this.observer?.unobserve(element);
        this.observed.delete(element);
      }
  }

  disconnect(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.observed.clear();
    this.viewport = null;
  }

  private report(entries: ResizeObserverEntry[]): void {
    const sizes = new Map<number, number>();
    let viewport: number | null = null;
    for (const entry of entries) {
      const element = entry.target;
      if (element === this.viewport) {
        viewport = entry.contentRect.height;
        continue;
      }
      if (!element.isConnected) {
        this.observer?.unobserve(element);
        this.observed.delete(element);
        continue;
      }
      const position = Number((element as HTMLElement).dataset.index);
      // Border box, as the virtualizer lays rows out; offsetHeight (layout is clean here) if absent.
      const box = entry.borderBoxSize?.[0];
      const height = box ? box.blockSize : (element as HTMLElement).offsetHeight;
      if (Number.isInteger(position) && position >= 0) sizes.set(position, Math.round(height));
    }
    this.onSizes(sizes, viewport);
  }
}
