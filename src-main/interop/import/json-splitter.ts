import { closeSync, openSync, readSync } from 'node:fs';
import type { ImportLimits } from './limits';
import { ioError } from './transfer-error';

/**
 * The fast reader met something it does not vouch for: malformed or unusual JSON, a value near a
 * limit, a file it cannot read. Never shown to anyone: the caller goes on with the exact
 * token-by-token reader (json-tokens.ts), which accepts or refuses the file with a precise error.
 */
export class FastPathDeclined extends Error {
  constructor(reason: string) {
    super(`fast path declined: ${reason}`);
  }
}

/** No JSON number needs this many digits (json-tokens.ts refuses longer runs as too large). */
const MAX_NUMBER_BYTES = 64 * 1024;
const READ_BYTES = 1 << 20;

/** `scanValue`'s answer when the window ends before the value does. */
export const NEED_MORE = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

export type SplitterLimits = Pick<ImportLimits, 'maxDepth' | 'maxStringLength'>;

export function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * A window on a file's bytes, read forward in large chunks. `bytes[pos]` is the next byte to
 * look at; `offset` is the file position of `bytes[0]`. Refilling keeps every byte from a
 * caller's mark on, so a value cut by a chunk's end can be scanned again whole.
 */
export class ByteWindow {
  private readonly fd: number;
  private closed = false;
  bytes: Buffer = Buffer.alloc(0);
  pos = 0;
  offset = 0;
  ended = false;

  constructor(private readonly path: string) {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw ioError('open', path, error);
    }
  }

  /** File position of `bytes[index]`. */
  at(index: number): number {
    return this.offset + index;
  }

  /**
   * Reads the next chunk, dropping the bytes before `keepFrom` (an index into `bytes`); indexes
   * move by the number dropped, which is returned. False once the file has ended.
   */
  fill(keepFrom: number): { more: boolean; dropped: number } {
    if (this.ended) return { more: false, dropped: 0 };
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    let read: number;
    try {
      read = readSync(this.fd, chunk, 0, READ_BYTES, null);
    } catch (error) {
      this.close();
      throw ioError('read', this.path, error);
    }
    if (read === 0) {
      this.ended = true;
      this.close();
      return { more: false, dropped: 0 };
    }
    const kept = this.bytes.subarray(keepFrom);
    this.bytes = kept.length === 0 ? chunk.subarray(0, read) : Buffer.concat([kept, chunk.subarray(0, read)]);
    this.offset += keepFrom;
    this.pos -= keepFrom;
    return { more: true, dropped: keepFrom };
  }

  /** The next byte that is not JSON whitespace (reading on as needed), or -1 at the end. */
  peekNonSpace(): number {
    for (;;) {
      while (this.pos < this.bytes.length) {
        const byte = this.bytes[this.pos] as number;
        if (!isJsonWhitespace(byte)) return byte;
        this.pos++;
      }
      if (!this.fill(this.pos).more) return -1;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/**
 * Finds where the JSON value starting at `from` ends: the index of the `,`, `]` or `}` that
 * follows it outside any string and container, or NEED_MORE when `bytes` ends first. Only
 * strings, escapes and nesting are tracked; the value's grammar is left to JSON.parse.
 * Declines (FastPathDeclined) a value that nests deeper than `maxDepth` counting the
 * `outerDepth` containers around it, a string of more than `maxStringLength` bytes (its UTF-16
 * length is at most its UTF-8 bytes, so every string within the limit passes; one over it in
 * bytes but not in characters is left to the exact reader to judge), or a run of bytes outside
 * strings too long to be a number.
 */
export function scanValue(bytes: Buffer, from: number, outerDepth: number, limits: SplitterLimits): number {
  const length = bytes.length;
  let depth = 0;
  let lastMark = from;
  for (let i = from; i < length; i++) {
    const byte = bytes[i] as number;
    if (byte === QUOTE) {
      const close = stringEnd(bytes, i);
      if (close === NEED_MORE) {
        if (length - i - 1 > limits.maxStringLength) throw new FastPathDeclined('a long string');
        return NEED_MORE;
      }
      if (close - i - 1 > limits.maxStringLength) throw new FastPathDeclined('a long string');
      i = close;
      lastMark = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (outerDepth + depth > limits.maxDepth) throw new FastPathDeclined('deep nesting');
      lastMark = i;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth === 0) return i;
      depth--;
      lastMark = i;
    } else if (byte === COMMA) {
      if (depth === 0) return i;
      lastMark = i;
    } else if (byte === COLON) {
      lastMark = i;
    } else if (i - lastMark > MAX_NUMBER_BYTES) {
      throw new FastPathDeclined('a long run outside strings');
    }
  }
  return NEED_MORE;
}

/** Index of the quote closing the string whose opening quote is at `open`, or NEED_MORE. */
export function stringEnd(bytes: Buffer, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return NEED_MORE;
    let backslashes = 0;
    for (let k = quote - 1; k > open && bytes[k] === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `bytes[from, to)` as text; declines bytes that are not UTF-8 (the exact reader says where). */
export function decodeSlice(bytes: Buffer, from: number, to: number): string {
  try {
    return utf8.decode(bytes.subarray(from, to));
  } catch {
    throw new FastPathDeclined('bytes that are not UTF-8');
  }
}

/** JSON.parse of text the splitter cut out; declines what does not parse (the exact reader says why). */
export function parseSlice(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FastPathDeclined('malformed JSON');
  }
}

/** The JSON structural byte expected next, or a decline. */
export function expectByte(window: ByteWindow, byte: number, what: string): void {
  if (window.peekNonSpace() !== byte) throw new FastPathDeclined(`no ${what}`);
  window.pos++;
}

export const BYTES = { QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, COLON } as const;
