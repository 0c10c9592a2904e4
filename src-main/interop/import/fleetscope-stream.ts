import type { ImportedEvent, ImportedSessionMeta } from '../../history/ports';
import { SessionCounts } from './count-limits';
import { FLEETSCOPE_FORMAT, checkExportedEvent, fleetscopeMeta } from './fleetscope-json';
import {
  BYTES,
  ByteWindow,
  FastPathDeclined,
  NEED_MORE,
  decodeSlice,
  expectByte,
  isJsonWhitespace,
  parseSlice,
  scanValue,
  stringEnd,
} from './json-splitter';
import type { ImportLimits } from './limits';

/**
 * The most heap the cursor of the exact reader (json-cursor.ts) can count per byte of JSON:
 * nested empty containers, 64 bytes each for two bytes of text. A value of at most
 * maxHeldBytes / HELD_PER_BYTE bytes is therefore within maxHeldBytes for the exact reader too,
 * and JSON.parse of it cannot hold much more.
 */
const HELD_PER_BYTE = 32;
/** Bytes of events handed to one JSON.parse (many events at once: far fewer calls). */
const RANGE_BYTES = 512 * 1024;
/** Bytes of events read for one batch at most, however small its events. */
const BATCH_BYTES = 1024 * 1024;

/** One batch of validated events, and the file position after the last of them. */
export interface StreamBatch {
  events: ImportedEvent[];
  position: number;
  done: boolean;
}

/**
 * Our own export read fast: a byte scanner (json-splitter.ts) cuts the `events` array into runs
 * of whole events, each run is one JSON.parse, each event one schema check. Everything the exact
 * reader (JsonTokenReader + JsonCursor) enforces holds here too, or is declined to it: depth,
 * string and number sizes, the memory one event may hold, event and message counts, UTF-8, the
 * grammar, and nothing but whitespace after the document. A decline after some events were
 * handed out (`handedOut`) means: read the file again with the exact reader, skipping as many.
 */
export class ExportStream {
  private readonly counts: SessionCounts;
  private readonly itemBytes: number;
  private readonly rangeBytes: number;
  private pending: ImportedEvent[] = [];
  /** File position after the run each pending event came from. */
  private pendingPositions: number[] = [];
  private sawItem = false;
  private arrayDone = false;
  /** Events handed out by `next` so far. */
  handedOut = 0;

  private constructor(
    private readonly window: ByteWindow,
    private readonly limits: ImportLimits,
    readonly meta: ImportedSessionMeta,
  ) {
    this.counts = new SessionCounts(limits);
    this.itemBytes = Math.floor(limits.maxHeldBytes / HELD_PER_BYTE);
    this.rangeBytes = Math.min(RANGE_BYTES, this.itemBytes);
  }

  /**
   * Opens `path` if it is our export with `format`, `version` and `session` before `events`
   * (as the app writes it), positioned at the first event; null for every other file, and for
   * one the fast reader declines before its first event.
   */
  static open(path: string, limits: ImportLimits): ExportStream | null {
    const window = new ByteWindow(path);
    try {
      const meta = readHeader(window, limits, Math.floor(limits.maxHeldBytes / HELD_PER_BYTE));
      if (meta) return new ExportStream(window, limits, meta);
    } catch (error) {
      if (!(error instanceof FastPathDeclined)) {
        window.close();
        throw error;
      }
    }
    window.close();
    return null;
  }

  get messages(): number {
    return this.counts.messages;
  }

  /** Up to `maxEvents` more events; `done` once the whole document has been read and checked. */
  next(maxEvents: number): StreamBatch {
    const want = Math.max(1, maxEvents);
    let read = 0;
    while (this.pending.length < want && !this.arrayDone && read < BATCH_BYTES) read += this.readRun();
    const events = this.pending.slice(0, want);
    const position = this.pendingPositions[events.length - 1] ?? this.window.at(this.window.pos);
    // What is left over (less than one run) is kept; what was handed out is let go.
    this.pending = this.pending.slice(events.length);
    this.pendingPositions = this.pendingPositions.slice(events.length);
    this.handedOut += events.length;
    return { events, position, done: this.arrayDone && this.pending.length === 0 };
  }

  close(): void {
    this.window.close();
  }

  /**
   * Parses the next run of whole events in the window (reading more when it holds none), at most
   * `rangeBytes` unless one event alone is longer. Returns the bytes it consumed.
   */
  private readRun(): number {
    const window = this.window;
    for (;;) {
      const bytes = window.bytes;
      const first = window.pos;
      let at = first;
      let lastSeparator = -1;
      let count = 0;
      while (at < bytes.length) {
        while (at < bytes.length && isJsonWhitespace(bytes[at] as number)) at++;
        if (at >= bytes.length) break;
        if (!this.sawItem && count === 0 && bytes[at] === BYTES.CLOSE_BRACKET) {
          lastSeparator = at;
          this.arrayDone = true;
          break;
        }
        const end = scanValue(bytes, at, 2, this.limits);
        if (end === NEED_MORE) {
          if (bytes.length - at > this.itemBytes) throw new FastPathDeclined('a large event');
          break;
        }
        if (end - at > this.itemBytes) throw new FastPathDeclined('a large event');
        // The run stays within rangeBytes: this event starts the next one.
        if (count > 0 && end - first > this.rangeBytes) break;
        const separator = bytes[end];
        if (separator !== BYTES.COMMA && separator !== BYTES.CLOSE_BRACKET) {
          throw new FastPathDeclined('no , or ] after an event');
        }
        count++;
        lastSeparator = end;
        at = end + 1;
        if (separator === BYTES.CLOSE_BRACKET) {
          this.arrayDone = true;
          break;
        }
      }
      if (lastSeparator >= 0) {
        if (count > 0) this.accept(decodeSlice(bytes, first, lastSeparator), count, window.at(lastSeparator));
        window.pos = lastSeparator + 1;
        if (this.arrayDone) this.readRest();
        return lastSeparator + 1 - first;
      }
      if (!window.fill(window.pos).more) throw new FastPathDeclined('the file ends inside the events');
    }
  }

  /** Checks and queues the `count` events of one run of text (`a, b, c`). */
  private accept(text: string, count: number, position: number): void {
    const values = parseSlice(`[${text}]`);
    if (!Array.isArray(values) || values.length !== count) throw new FastPathDeclined('a miscounted run');
    this.sawItem = true;
    for (const value of values) {
      const event = checkExportedEvent(value);
      if (!event) throw new FastPathDeclined('an event the schema refuses');
      this.counts.add(event);
      this.pending.push(event);
      this.pendingPositions.push(position);
    }
  }

  /** After `events`: later keys are checked and dropped, then nothing but whitespace may follow. */
  private readRest(): void {
    const window = this.window;
    for (;;) {
      const byte = window.peekNonSpace();
      window.pos++;
      if (byte === BYTES.CLOSE_BRACE) break;
      if (byte !== BYTES.COMMA) throw new FastPathDeclined('no , or } after the events');
      readKey(window, this.limits, this.itemBytes);
      expectByte(window, BYTES.COLON, ':');
      parseSlice(readValueText(window, 1, this.limits, this.itemBytes));
    }
    if (window.peekNonSpace() !== -1) throw new FastPathDeclined('more data after the document');
  }
}

/**
 * Reads the top-level keys up to `events`. The session meta when `events` follows `format`
 * (ours) and `session`, as the exact reader streams them (plan-import.ts); else null.
 */
function readHeader(window: ByteWindow, limits: ImportLimits, maxBytes: number): ImportedSessionMeta | null {
  expectByte(window, BYTES.OPEN_BRACE, '{');
  const header: Record<string, unknown> = {};
  let headerBytes = 0;
  for (;;) {
    if (window.peekNonSpace() === BYTES.CLOSE_BRACE) return null;
    const key = readKey(window, limits, maxBytes);
    expectByte(window, BYTES.COLON, ':');
    if (key === 'events' && header.format === FLEETSCOPE_FORMAT && header.session !== undefined) {
      let meta: ImportedSessionMeta;
      try {
        meta = fleetscopeMeta(header);
      } catch {
        throw new FastPathDeclined('a header the exact reader refuses');
      }
      expectByte(window, BYTES.OPEN_BRACKET, '[');
      return meta;
    }
    const text = readValueText(window, 1, limits, maxBytes);
    headerBytes += text.length;
    if (headerBytes > maxBytes) throw new FastPathDeclined('a large header');
    header[key] = parseSlice(text);
    const byte = window.peekNonSpace();
    window.pos++;
    if (byte === BYTES.CLOSE_BRACE) return null;
    if (byte !== BYTES.COMMA) throw new FastPathDeclined('no , or } after a value');
  }
}

/** A key in double quotes at the window's position (after whitespace), decoded. */
function readKey(window: ByteWindow, limits: ImportLimits, maxBytes: number): string {
  if (window.peekNonSpace() !== BYTES.QUOTE) throw new FastPathDeclined('no key');
  for (;;) {
    const close = stringEnd(window.bytes, window.pos);
    if (close !== NEED_MORE) {
      if (close - window.pos - 1 > limits.maxStringLength) throw new FastPathDeclined('a long key');
      const key = parseSlice(decodeSlice(window.bytes, window.pos, close + 1));
      window.pos = close + 1;
      if (typeof key !== 'string') throw new FastPathDeclined('no key');
      return key;
    }
    if (window.bytes.length - window.pos > maxBytes) throw new FastPathDeclined('a long key');
    if (!window.fill(window.pos).more) throw new FastPathDeclined('the file ends in a key');
  }
}

/** The text of the value at the window's position, leaving the window on the byte after it. */
function readValueText(
  window: ByteWindow,
  outerDepth: number,
  limits: ImportLimits,
  maxBytes: number,
): string {
  window.peekNonSpace();
  for (;;) {
    const end = scanValue(window.bytes, window.pos, outerDepth, limits);
    if (end !== NEED_MORE) {
      if (end - window.pos > maxBytes) throw new FastPathDeclined('a large value');
      const text = decodeSlice(window.bytes, window.pos, end);
      window.pos = end;
      return text;
    }
    if (window.bytes.length - window.pos > maxBytes) throw new FastPathDeclined('a large value');
    if (!window.fill(window.pos).more) throw new FastPathDeclined('the file ends in a value');
  }
}
