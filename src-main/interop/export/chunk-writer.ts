import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Pieces are gathered until this many UTF-16 units, then written as one chunk. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Writes many small strings to a stream as fewer, larger chunks, and waits for 'drain' when the
 * stream asks for backpressure, so an export never holds more than about one chunk in memory.
 */
export class ChunkWriter {
  private pieces: string[] = [];
  private length = 0;
  bytes = 0;
  chunks = 0;

  constructor(private readonly out: Writable) {}

  /**
   * Queues a piece. Returns a promise only when a chunk was written (await it: the stream may be
   * full); most calls return undefined, sparing a microtask per piece.
   */
  write(piece: string): Promise<void> | undefined {
    this.pieces.push(piece);
    this.length += piece.length;
    return this.length >= CHUNK_CHARS ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.length === 0) return;
    const chunk = this.pieces.join('');
    this.pieces = [];
    this.length = 0;
    this.bytes += Buffer.byteLength(chunk);
    this.chunks++;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
}
