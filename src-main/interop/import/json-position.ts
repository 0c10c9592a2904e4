import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK_BYTES = 1 << 20;

/**
 * `line L, column C (byte N)` for a byte offset in a UTF-8 file: lines and columns count from 1,
 * columns in characters. Re-reads the file up to the offset, so it is only called for errors.
 * Falls back to the byte alone when the file cannot be read again.
 */
export function describePosition(path: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return `byte ${offset}`;
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let line = 1;
    let column = 1;
    let position = 0;
    while (position < offset) {
      const bytes = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, offset - position), position);
      if (bytes === 0) break;
      for (let i = 0; i < bytes; i++) {
        const byte = buffer[i] as number;
        if (byte === 0x0a) {
          line++;
          column = 1;
        } else if ((byte & 0xc0) !== 0x80) {
          // Continuation bytes of a multi-byte character do not start a new column.
          column++;
        }
      }
      position += bytes;
    }
    return `line ${line}, column ${column} (byte ${offset})`;
  } catch {
    return `byte ${offset}`;
  } finally {
    closeSync(fd);
  }
}
