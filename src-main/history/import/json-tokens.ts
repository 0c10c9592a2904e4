import { closeSync, openSync, readSync } from 'node:fs';
import Parser from 'stream-json/Parser.js';
import Verifier from 'stream-json/utils/Verifier.js';
import { TransferError, ioError } from './transfer-error';

/** A packed stream-json token (values are packed, never streamed in pieces). */
export type JsonToken =
  | { name: 'startObject' | 'endObject' | 'startArray' | 'endArray' | 'nullValue' }
  | { name: 'keyValue' | 'stringValue' | 'numberValue'; value: string }
  | { name: 'trueValue' | 'falseValue'; value: boolean };

const CHUNK_BYTES = 1 << 20;

/**
 * Pulls JSON tokens from a file synchronously, one chunk at a time, so a huge file never becomes
 * one string and the caller can hand a lazy, synchronous iterable to `SessionWriter.importSession`.
 * The tokenizer is stream-json's Parser driven directly (its Transform plumbing is bypassed).
 * Syntax errors are re-located with stream-json's Verifier to give line, column and offset.
 */
export class JsonTokenReader {
  private readonly fd: number;
  private readonly parser = new Parser({ packValues: true, streamValues: false });
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private queue: JsonToken[] = [];
  private head = 0;
  private finished = false;
  private closed = false;
  /** Bytes handed to the tokenizer so far. */
  bytesRead = 0;

  constructor(
    private readonly path: string,
    private readonly onChunk?: (bytesRead: number) => void,
  ) {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw ioError('open', path, error);
    }
    this.parser.push = (token: JsonToken | null): boolean => {
      if (token !== null) this.queue.push(token);
      return true;
    };
  }

  /** The next token, or null at the end of the input. */
  next(): JsonToken | null {
    while (this.head >= this.queue.length) {
      if (this.finished) return null;
      this.queue = [];
      this.head = 0;
      this.feed();
    }
    return this.queue[this.head++] ?? null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private feed(): void {
    let bytes: number;
    try {
      bytes = readSync(this.fd, this.buffer, 0, CHUNK_BYTES, null);
    } catch (error) {
      this.close();
      throw ioError('read', this.path, error);
    }
    const done = (error?: Error | null): void => {
      if (error) {
        this.close();
        throw locateSyntaxError(this.path, error);
      }
    };
    if (bytes === 0) {
      this.finished = true;
      this.close();
      this.parser._flush(done);
      return;
    }
    this.bytesRead += bytes;
    // The parser keeps its own copy of undecoded bytes, so the buffer can be reused.
    this.parser._transform(this.buffer.subarray(0, bytes), 'utf8', done);
    this.onChunk?.(this.bytesRead);
  }
}

interface VerifierError extends Error {
  line?: number;
  pos?: number;
  offset?: number;
}

/** Re-reads the file with a verifier to turn the parser's error into one with a position. */
function locateSyntaxError(path: string, parserError: Error): TransferError {
  const verifier = new Verifier();
  const state: { found: VerifierError | null } = { found: null };
  const record = (error?: Error | null): void => {
    if (error && !state.found) state.found = error;
  };
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const bytes = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (bytes === 0) break;
      verifier._write(Buffer.from(buffer.subarray(0, bytes)), 'utf8', record);
      if (state.found) break;
    }
    if (!state.found) verifier._final(record);
  } finally {
    closeSync(fd);
  }
  const error = state.found;
  const reason = (error?.message ?? parserError.message)
    .replace(/^ERROR at .*?: /, '')
    .replace(/^(Verifier|Parser) (cannot parse input: |has )?/, '');
  if (error?.line !== undefined) {
    return new TransferError(
      'invalid-input',
      `Malformed JSON at line ${error.line}, column ${error.pos} (character offset ${error.offset}): ${reason}.`,
    );
  }
  return new TransferError('invalid-input', `Malformed JSON: ${reason}.`);
}
