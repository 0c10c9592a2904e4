import type { JsonToken, JsonTokenReader } from './json-tokens';
import { formatBytes } from './limits';
import { TransferError } from './transfer-error';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Estimated heap bytes per assembled value: a slot in its parent, plus the value itself. */
const SLOT_BYTES = 8;
const CONTAINER_BYTES = 56;
const STRING_HEADER_BYTES = 16;
const NUMBER_BYTES = 16;

/**
 * A pull cursor over a token stream: walk an object's keys or an array's items one at a time,
 * and assemble (or skip) only the values the caller wants. Assembled values count against
 * `maxHeldBytes` (an estimate of their heap size) until the caller says it let them go
 * (`release`), so a document read whole cannot grow without bound, however dense its JSON.
 */
export class JsonCursor {
  private lookahead: JsonToken | null | undefined;
  /** Estimated bytes assembled since the last release. */
  private held = 0;

  constructor(
    private readonly reader: JsonTokenReader,
    private readonly maxHeldBytes: number,
  ) {}

  get bytesRead(): number {
    return this.reader.bytesRead;
  }

  peek(): JsonToken | null {
    if (this.lookahead === undefined) this.lookahead = this.reader.next();
    return this.lookahead;
  }

  take(): JsonToken | null {
    const token = this.peek();
    this.lookahead = undefined;
    return token;
  }

  /** The caller dropped every value it assembled so far (one event is done). */
  release(): void {
    this.held = 0;
  }

  /** Consumes `{` and yields each key; the caller must read or skip the value before the next. */
  *keys(path: string): Generator<string> {
    this.expect('startObject', path);
    for (;;) {
      const token = this.take();
      if (token?.name === 'endObject') return;
      if (token?.name !== 'keyValue') throw unexpected(token, path);
      yield token.value;
    }
  }

  /** Consumes `[` and yields each index; the caller must read or skip the item before the next. */
  *items(path: string): Generator<number> {
    this.expect('startArray', path);
    for (let index = 0; ; index++) {
      if (this.peek()?.name === 'endArray') {
        this.take();
        return;
      }
      yield index;
    }
  }

  /** Assembles the next complete value. Iterative; nesting is already capped by the reader. */
  readValue(path: string): JsonValue {
    const stack: Array<{ container: JsonValue[] | Record<string, JsonValue>; key: string | null }> = [];
    let key: string | null = null;
    for (;;) {
      const token = this.take();
      if (token === null) throw unexpected(token, path);
      this.count(path, token);
      let value: JsonValue;
      switch (token.name) {
        case 'keyValue':
          key = token.value;
          continue;
        case 'startObject':
        case 'startArray':
          stack.push({ container: token.name === 'startObject' ? {} : [], key });
          key = null;
          continue;
        case 'endObject':
        case 'endArray': {
          const frame = stack.pop();
          if (!frame) throw unexpected(token, path);
          value = frame.container;
          key = frame.key;
          break;
        }
        case 'stringValue':
        case 'numberValue':
        case 'trueValue':
        case 'falseValue':
          value = token.value;
          break;
        case 'nullValue':
          value = null;
          break;
      }
      const parent = stack[stack.length - 1];
      if (!parent) return value;
      if (Array.isArray(parent.container)) parent.container.push(value);
      else parent.container[key ?? ''] = value;
      key = null;
    }
  }

  skipValue(path: string): void {
    let depth = 0;
    do {
      const token = this.take();
      if (token === null) throw unexpected(token, path);
      if (token.name === 'startObject' || token.name === 'startArray') depth++;
      else if (token.name === 'endObject' || token.name === 'endArray') depth--;
    } while (depth > 0);
  }

  /** Fails unless the input has ended (no trailing value). */
  expectEnd(): void {
    const token = this.take();
    if (token !== null) throw unexpected(token, '$');
  }

  private count(path: string, token: JsonToken): void {
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.held += SLOT_BYTES + CONTAINER_BYTES;
        break;
      case 'stringValue':
        this.held += SLOT_BYTES + STRING_HEADER_BYTES + token.value.length;
        break;
      case 'numberValue':
        this.held += SLOT_BYTES + NUMBER_BYTES;
        break;
      case 'trueValue':
      case 'falseValue':
      case 'nullValue':
        this.held += SLOT_BYTES;
        break;
      case 'keyValue':
      case 'endObject':
      case 'endArray':
        return;
    }
    if (this.held <= this.maxHeldBytes) return;
    throw new TransferError(
      'too-large',
      `The JSON at ${path} is too large to read whole: it needs more than ${formatBytes(this.maxHeldBytes)} of memory (reached at byte ${token.offset}). Only a Fleetscope export is read event by event; other files must stay under this limit.`,
    );
  }

  private expect(name: 'startObject' | 'startArray', path: string): void {
    const token = this.take();
    if (token?.name !== name)
      throw unexpected(token, path, name === 'startObject' ? 'an object' : 'an array');
  }
}

function describe(token: JsonToken | null): string {
  if (token === null) return 'the end of the file';
  switch (token.name) {
    case 'startObject':
      return 'an object';
    case 'startArray':
      return 'an array';
    case 'endObject':
    case 'endArray':
      return 'the end of a container';
    case 'keyValue':
      return `the key "${token.value.slice(0, 80)}"`;
    case 'stringValue':
      return 'a string';
    case 'numberValue':
      return 'a number';
    case 'nullValue':
      return 'null';
    case 'trueValue':
    case 'falseValue':
      return 'a boolean';
  }
}

function unexpected(token: JsonToken | null, path: string, wanted?: string): TransferError {
  const what = wanted ? `expected ${wanted} but found ${describe(token)}` : `unexpected ${describe(token)}`;
  const at = token === null ? '' : ` (byte ${token.offset})`;
  return new TransferError('invalid-input', `Invalid file at ${path}${at}: ${what}.`);
}
