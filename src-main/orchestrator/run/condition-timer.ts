/** One timer for the earliest time-based condition. */
export class ConditionTimer {
  private handle: NodeJS.Timeout | null = null;

  constructor(private readonly onDue: () => void) {}

  schedule(at: number | null): void {
    this.clear();
    if (at === null) return;
    this.handle = setTimeout(this.onDue, Math.max(0, at - Date.now()));
  }

  clear(): void {
    if (this.handle !== null) clearTimeout(this.handle);
    this.handle = null;
  }
}
