import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@shared/domain';
import type { EventSink } from '../sink';

/** Lines buffered before a write even without a flush. */
const MAX_BUFFERED_LINES = 512;

/**
 * Writes each session's events as JSON lines to `<folder>/<sessionId>.jsonl`. Buffers in memory
 * and appends on flush, so streaming tokens do not cost one write each.
 */
export class JsonlFileSink implements EventSink {
  private readonly buffers = new Map<string, string[]>();
  private buffered = 0;

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
    for (const [sessionId, lines] of this.buffers) {
      if (lines.length > 0) appendFileSync(this.fileFor(sessionId), `${lines.join('\n')}\n`);
    }
    this.buffers.clear();
    this.buffered = 0;
  }
}
