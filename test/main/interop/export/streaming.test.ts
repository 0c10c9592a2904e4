import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { exportToStream, type ExportFormat } from '../../../../src-main/interop/export';
import { GeneratedSession } from './sample-session';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap still in use after a full collection: what the export retains, not its garbage. */
function retainedHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Counts what arrives without keeping it; optionally slow, to force backpressure. */
class CountingSink extends Writable {
  chunks = 0;
  bytes = 0;
  largest = 0;
  peakHeap = 0;

  constructor(private readonly slow = false) {
    super({ highWaterMark: 16 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks++;
    this.bytes += chunk.length;
    this.largest = Math.max(this.largest, chunk.length);
    if (this.chunks % 200 === 0) this.peakHeap = Math.max(this.peakHeap, retainedHeap());
    if (this.slow) setImmediate(callback);
    else callback();
  }
}

describe('exports stream large sessions', () => {
  it.each<ExportFormat>(['json', 'md', 'html', 'otlp'])(
    '%s: 30k messages reach the stream as many bounded chunks and the retained heap stays flat',
    { timeout: 120_000 },
    async (format) => {
      const session = new GeneratedSession(30_000);
      const sink = new CountingSink();
      const progress: Array<[number, number]> = [];
      const heapBefore = retainedHeap();
      const result = await exportToStream(session, session.id, format, sink, {
        onProgress: (done, total) => progress.push([done, total]),
      });
      expect(result.bytes).toBe(sink.bytes);
      expect(sink.bytes).toBeGreaterThan(5 * 1024 * 1024);
      expect(sink.chunks).toBeGreaterThan(50);
      expect(sink.largest).toBeLessThan(1024 * 1024);
      // The whole output is tens of MB; what the export holds at any point is a few MB at most.
      expect(sink.peakHeap - heapBefore).toBeLessThan(Math.min(sink.bytes / 10, 16 * 1024 * 1024));
      const total = session.countEvents();
      expect(progress.length).toBeGreaterThan(100);
      expect(progress.at(-1)).toEqual([total, total]);
    },
  );

  it('waits for a slow stream to drain instead of buffering the export', async () => {
    const session = new GeneratedSession(5_000);
    const sink = new CountingSink(true);
    const result = await exportToStream(session, session.id, 'json', sink);
    expect(sink.bytes).toBe(result.bytes);
    expect(sink.writableLength).toBe(0);
    expect(sink.chunks).toBeGreaterThan(10);
  });
});
