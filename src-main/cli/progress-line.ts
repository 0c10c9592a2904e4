import type { CliIO } from './command';

/** At most one redraw per this many ms: a terminal line, not a flood of writes. */
const REDRAW_MS = 100;

/** Megabytes with one decimal below 10 MB, whole above. */
function megabytes(bytes: number, total: number): string {
  return (bytes / 1_000_000).toFixed(total < 10_000_000 ? 1 : 0);
}

/**
 * Progress of a long import or export on the terminal's status line ("Importing run.json: 42%
 * (285 of 681 MB)"), redrawn at most every REDRAW_MS; nothing at all where `io.status` is absent
 * (stderr is not a terminal). `unit` says what `done` and `total` count. `end()` clears the line.
 */
export function progressLine(io: CliIO, label: string, unit: 'bytes' | 'events') {
  let lastAt = -Infinity;
  let shown = false;
  return {
    update(done: number, total: number): void {
      if (!io.status) return;
      const now = Date.now();
      if (now - lastAt < REDRAW_MS && done < total) return;
      lastAt = now;
      const percent = total > 0 ? Math.floor((100 * done) / total) : 0;
      const amount =
        unit === 'bytes'
          ? `${megabytes(done, total)} of ${megabytes(total, total)} MB`
          : `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} events`;
      io.status(`${label}: ${percent}% (${amount})`);
      shown = true;
    },
    end(): void {
      if (shown) io.status?.(null);
      shown = false;
    },
  };
}
