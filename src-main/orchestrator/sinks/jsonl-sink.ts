import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../sink';

/** Lines buffered before a write even without a flush. */
const MAX_BUFFERED_LINES = 512;
/** Milliseconds buffered lines wait for their write when someone waits for them (whenDurable). */
const WRITE_AFTER_MS = 20;

/**
 * Writes each session's events as JSON lines to `<folder>/<sessionId>.jsonl`. Buffers in memory
 * and appends on flush, so streaming tokens do not cost one write each.
 */
export class JsonlFileSink implements EventSink {
  private readonly buffers = new Map<string, string[]>();
  private buffered = 0;
  private waiting: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
  }

  fileFor(sessionId: string): string {
    // Session ids are generated (prefix + UUID); anything else is made safe for a file name.
    return join(this.folder, `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl`);
  }

  append(event: RunEvent): void {
    const lines = this.buffers.get(event.sessionId) ?? [];
    lines.push(JSON.stringify(event));
    this.buffers.set(event.sessionId, lines);
    this.buffered += 1;
    if (this.buffered >= MAX_BUFFERED_LINES) this.flush();
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const [sessionId, lines] of this.buffers) {
      if (lines.length > 0) appendFileSync(this.fileFor(sessionId), `${lines.join('\n')}\n`);
      // Written: a failure with a later session must not write these twice.
      this.buffers.delete(sessionId);
      this.buffered -= lines.length;
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const callback of waiting) callback();
  }

  whenDurable(callback: () => void): void {
    if (this.buffered === 0) return callback();
    this.waiting.push(callback);
    this.timer ??= setTimeout(() => {
      try {
        this.flush();
      } catch {
        // The lines stay buffered (and their callbacks waiting) for the next flush.
        this.timer = null;
      }
    }, WRITE_AFTER_MS);
  }
}
