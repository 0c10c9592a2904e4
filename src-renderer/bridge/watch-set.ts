/**
 * The sessions this renderer watches for live run events, counted per opener so two views of
 * one session share it. Every change is sent at once (before any call the opener makes next), so
 * a view that loads its session after watching it misses no live event in between.
 */
export class WatchSet {
  private readonly counts = new Map<string, number>();

  constructor(private readonly send: (ids: string[]) => void) {}

  get ids(): string[] {
    return [...this.counts.keys()];
  }

  /** Watches `sessionId` until the returned function is called (once; later calls do nothing). */
  add(sessionId: string): () => void {
    const count = this.counts.get(sessionId) ?? 0;
    this.counts.set(sessionId, count + 1);
    if (count === 0) this.send(this.ids);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(sessionId) ?? 1) - 1;
      if (left > 0) {
        this.counts.set(sessionId, left);
        return;
      }
      this.counts.delete(sessionId);
      this.send(this.ids);
    };
  }
}
