import { closeSync, openSync, readSync } from 'node:fs';
import { Tokenizer, TokenizerError, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { describePosition } from './json-position';
import { formatBytes, type ImportLimits } from './limits';
import { TransferError, ioError } from './transfer-error';

/** A JSON token with the byte offset where it starts. Strings and numbers come whole. */
export type JsonToken =
  | { name: 'startObject' | 'endObject' | 'startArray' | 'endArray' | 'nullValue'; offset: number }
  | { name: 'keyValue' | 'stringValue'; value: string; offset: number }
  | { name: 'numberValue'; value: number; offset: number }
  | { name: 'trueValue' | 'falseValue'; value: boolean; offset: number };

/** What the grammar allows next. */
type Expect = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'commaOrEnd' | 'done';

const READ_BYTES = 1 << 20;
/** Bytes handed to the tokenizer at once, which bounds the tokens queued per step. */
const FEED_BYTES = 64 * 1024;
/** No JSON number needs this many digits; a longer run is refused before it grows further. */
const MAX_NUMBER_BYTES = 64 * 1024;

export type TokenReaderLimits = Pick<ImportLimits, 'maxDepth' | 'maxStringLength'>;

/**
 * Pulls JSON tokens from a file synchronously, a slice at a time, so a huge file is never one
 * string and a caller can hand a lazy iterable on. Lexing is @streamparser/json's Tokenizer;
 * this class checks the grammar on top of it, keeps only a stack of open containers (capped at
 * `maxDepth`), and refuses over-long strings. Every error names the position as line, column and
 * byte, and says what was wrong ("nests deeper than 64 levels", "ends before it is complete").
 */
export class JsonTokenReader {
  private readonly fd: number;
  /**
   * Partial tokens (a string or number still being read when a slice ends) let the limits act
   * while a value grows, not after a hostile 100 MB string has been assembled.
   */
  private readonly tokenizer = new Tokenizer({ emitPartialTokens: true });
  private readonly readBuffer = Buffer.allocUnsafe(READ_BYTES);
  private pendingBytes: Buffer | null = null;
  private queue: JsonToken[] = [];
  private head = 0;
  private finished = false;
  private closed = false;
  private expect: Expect = 'value';
  /** Byte offsets of the open containers; its length is the nesting depth. */
  private readonly open: number[] = [];
  private readonly kinds: Array<'object' | 'array'> = [];
  private sawToken = false;
  /** A limit broken where the tokenizer would swallow the error; thrown once its write returns. */
  private deferred: TransferError | null = null;
  /** Bytes handed to the tokenizer so far. */
  bytesRead = 0;

  constructor(
    private readonly path: string,
    private readonly limits: TokenReaderLimits,
    private readonly onChunk?: (bytesRead: number) => void,
  ) {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw ioError('open', path, error);
    }
    this.tokenizer.onToken = (token) => this.accept(token);
  }

  /** The next token, or null once the document has ended (trailing whitespace only). */
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
    if (!this.pendingBytes || this.pendingBytes.length === 0) {
      let bytes: number;
      try {
        bytes = readSync(this.fd, this.readBuffer, 0, READ_BYTES, null);
      } catch (error) {
        this.close();
        throw ioError('read', this.path, error);
      }
      if (bytes === 0) {
        this.finish();
        return;
      }
      this.pendingBytes = this.readBuffer.subarray(0, bytes);
    }
    const slice = this.pendingBytes.subarray(0, FEED_BYTES);
    this.pendingBytes = this.pendingBytes.subarray(slice.length);
    const start = this.bytesRead;
    this.bytesRead += slice.length;
    this.guard(() => this.tokenizer.write(slice), start);
    if (this.deferred) {
      this.close();
      throw this.deferred;
    }
    if (this.pendingBytes.length === 0) this.onChunk?.(this.bytesRead);
  }

  private finish(): void {
    this.finished = true;
    this.close();
    this.guard(() => this.tokenizer.end(), this.bytesRead);
    if (this.expect === 'done') return;
    const at = describePosition(this.path, this.bytesRead);
    if (!this.sawToken) {
      throw new TransferError(
        'invalid-input',
        `The JSON ends before it is complete at ${at}: expected a value.`,
      );
    }
    const depth = this.open.length;
    const innermost = this.open[depth - 1];
    const still =
      depth === 0
        ? ''
        : `: ${depth} ${depth === 1 ? 'array or object is' : 'arrays or objects are'} still open, the innermost from ${describePosition(this.path, innermost ?? 0)}`;
    throw new TransferError('invalid-input', `The JSON ends before it is complete at ${at}${still}.`);
  }

  /** Runs the tokenizer, turning its errors into TransferErrors with a position. */
  private guard(step: () => void, chunkStart: number): void {
    try {
      step();
    } catch (error) {
      this.close();
      if (error instanceof TransferError) throw error;
      throw this.lexError(error, chunkStart);
    }
  }

  private lexError(error: unknown, chunkStart: number): TransferError {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof TokenizerError) {
      const unexpected = /^Unexpected "([\s\S]*?)" at .*absolute position "(\d+)"/.exec(message);
      if (unexpected) {
        const where = describePosition(this.path, Number(unexpected[2]));
        return new TransferError(
          'invalid-input',
          `Malformed JSON at ${where}: unexpected character ${printable(unexpected[1] ?? '')}.`,
        );
      }
      const state = /state: ([A-Z_0-9]+)/.exec(message)?.[1] ?? '';
      const what = state.startsWith('STRING')
        ? 'a string is not closed'
        : state.startsWith('NUMBER')
          ? 'a number is cut off'
          : 'a value is cut off';
      const where = describePosition(this.path, this.bytesRead);
      return new TransferError('invalid-input', `The JSON ends before it is complete at ${where}: ${what}.`);
    }
    if (error instanceof TypeError && /utf-?8|encoded data/i.test(message)) {
      return new TransferError(
        'invalid-input',
        `The file is not valid UTF-8 text (in the ${formatBytes(FEED_BYTES)} from byte ${chunkStart}).`,
      );
    }
    return new TransferError('invalid-input', `Malformed JSON near byte ${chunkStart}: ${message}`);
  }

  private accept(info: ParsedTokenInfo): void {
    if (info.partial) return this.checkPartial(info);
    this.sawToken = true;
    const { offset } = info;
    switch (this.expect) {
      case 'value':
      case 'valueOrEnd':
        return this.acceptValue(info);
      case 'keyOrEnd':
      case 'key':
        if (info.token === TokenType.STRING) {
          this.push({ name: 'keyValue', value: this.checkString(info.value as string, offset), offset });
          this.expect = 'colon';
          return;
        }
        if (info.token === TokenType.RIGHT_BRACE && this.expect === 'keyOrEnd')
          return this.closeContainer(offset);
        throw this.syntax(offset, 'expected a key in double quotes', info);
      case 'colon':
        if (info.token !== TokenType.COLON) throw this.syntax(offset, "expected ':'", info);
        this.expect = 'value';
        return;
      case 'commaOrEnd': {
        const inObject = this.kinds[this.kinds.length - 1] === 'object';
        if (info.token === TokenType.COMMA) {
          this.expect = inObject ? 'key' : 'value';
          return;
        }
        if (info.token === (inObject ? TokenType.RIGHT_BRACE : TokenType.RIGHT_BRACKET)) {
          return this.closeContainer(offset);
        }
        throw this.syntax(offset, inObject ? "expected ',' or '}'" : "expected ',' or ']'", info);
      }
      case 'done':
        throw this.syntax(offset, 'more data follows the end of the JSON document', info);
    }
  }

  private acceptValue(info: ParsedTokenInfo): void {
    const { offset } = info;
    switch (info.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET: {
        if (this.open.length >= this.limits.maxDepth) {
          const where = describePosition(this.path, offset);
          throw new TransferError(
            'invalid-input',
            `The file nests deeper than ${this.limits.maxDepth} levels at ${where}.`,
          );
        }
        const object = info.token === TokenType.LEFT_BRACE;
        this.open.push(offset);
        this.kinds.push(object ? 'object' : 'array');
        this.push({ name: object ? 'startObject' : 'startArray', offset });
        this.expect = object ? 'keyOrEnd' : 'valueOrEnd';
        return;
      }
      case TokenType.RIGHT_BRACKET:
        if (this.expect === 'valueOrEnd') return this.closeContainer(offset);
        throw this.syntax(offset, 'expected a value', info);
      case TokenType.STRING:
        this.push({ name: 'stringValue', value: this.checkString(info.value as string, offset), offset });
        break;
      case TokenType.NUMBER:
        this.push({ name: 'numberValue', value: info.value as number, offset });
        break;
      case TokenType.TRUE:
        this.push({ name: 'trueValue', value: true, offset });
        break;
      case TokenType.FALSE:
        this.push({ name: 'falseValue', value: false, offset });
        break;
      case TokenType.NULL:
        this.push({ name: 'nullValue', offset });
        break;
      default:
        throw this.syntax(offset, 'expected a value', info);
    }
    this.afterValue();
  }

  private closeContainer(offset: number): void {
    const kind = this.kinds.pop();
    this.open.pop();
    this.push({ name: kind === 'object' ? 'endObject' : 'endArray', offset });
    this.afterValue();
  }

  private afterValue(): void {
    this.expect = this.open.length === 0 ? 'done' : 'commaOrEnd';
  }

  private push(token: JsonToken): void {
    this.queue.push(token);
  }

  private checkPartial(info: ParsedTokenInfo): void {
    if (info.token === TokenType.STRING) {
      this.checkString(info.value as string, info.offset);
    } else if (info.token === TokenType.NUMBER && this.bytesRead - info.offset > MAX_NUMBER_BYTES) {
      // The tokenizer swallows errors thrown for partial numbers: report after its write returns.
      const where = describePosition(this.path, info.offset);
      this.deferred ??= new TransferError(
        'too-large',
        `The number at ${where} is longer than ${formatBytes(MAX_NUMBER_BYTES)}.`,
      );
    }
  }

  private checkString(value: string, offset: number): string {
    if (value.length <= this.limits.maxStringLength) return value;
    const where = describePosition(this.path, offset);
    throw new TransferError(
      'too-large',
      `The string at ${where} is longer than ${this.limits.maxStringLength.toLocaleString('en-US')} characters, the most one string may hold.`,
    );
  }

  private syntax(offset: number, wanted: string, info: ParsedTokenInfo): TransferError {
    const where = describePosition(this.path, offset);
    return new TransferError(
      'invalid-input',
      `Malformed JSON at ${where}: ${wanted} but found ${found(info)}.`,
    );
  }
}

function found(info: ParsedTokenInfo): string {
  switch (info.token) {
    case TokenType.LEFT_BRACE:
      return "'{'";
    case TokenType.RIGHT_BRACE:
      return "'}'";
    case TokenType.LEFT_BRACKET:
      return "'['";
    case TokenType.RIGHT_BRACKET:
      return "']'";
    case TokenType.COLON:
      return "':'";
    case TokenType.COMMA:
      return "','";
    case TokenType.STRING:
      return 'a string';
    case TokenType.NUMBER:
      return 'a number';
    case TokenType.TRUE:
    case TokenType.FALSE:
      return 'a boolean';
    case TokenType.NULL:
      return 'null';
    case TokenType.SEPARATOR:
      return 'a separator';
  }
}

/** The tokenizer reports the offending byte as a one-character string. */
function printable(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20 || code > 0x7e) return `(byte 0x${code.toString(16).toUpperCase().padStart(2, '0')})`;
  return `'${char}'`;
}
