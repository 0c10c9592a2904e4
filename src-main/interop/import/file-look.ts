import { closeSync, openSync, readSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { looksLikeChatDevLog } from './chatdev-entries';
import { TransferError, ioError } from './transfer-error';

/** Bytes read from the start of a file to tell what it is. */
export const HEAD_BYTES = 64 * 1024;

/** What a file looks like from its first bytes. */
export type FileLook =
  /** `hint`: what the file looks like when it starts like JSON but probably is not (said if it fails). */
  | { kind: 'json'; hint?: string }
  | { kind: 'chatdev-log' }
  /** Something no importer reads; `description` says what, for a person. */
  | { kind: 'other'; description: string };

/** The first bytes of a file (at most HEAD_BYTES). */
export function readHead(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw ioError('read', path, error);
  }
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, read);
  } catch (error) {
    throw ioError('read', path, error);
  } finally {
    closeSync(fd);
  }
}

/** Well-known binary formats by their first bytes. */
const MAGIC: Array<[Buffer, string]> = [
  [Buffer.from('1f8b', 'hex'), 'gzip-compressed data (decompress it first)'],
  [Buffer.from('504b0304', 'hex'), 'a ZIP archive'],
  [Buffer.from('SQLite format 3\0'), 'an SQLite database'],
  [Buffer.from('%PDF-'), 'a PDF document'],
  [Buffer.from('89504e47', 'hex'), 'a PNG image'],
  [Buffer.from('ffd8ff', 'hex'), 'a JPEG image'],
];

function isJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isJsonLine(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/**
 * Tells from a file's first bytes whether it is JSON (every JSON format starts with `{` or `[`),
 * a ChatDev log, or something else, which it names: a binary format, an HTML or XML page, a
 * Python value printed with print()/repr(), JSON Lines, YAML, CSV, Markdown, or plain text.
 */
export function lookOf(head: Buffer): FileLook {
  for (const [magic, description] of MAGIC) {
    if (head.subarray(0, magic.length).equals(magic)) return { kind: 'other', description };
  }
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const sample = text.slice(0, 4096);
  // eslint-disable-next-line no-control-regex -- control characters are what marks binary data.
  const controls = sample.match(/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/g)?.length ?? 0;
  if (sample.includes('\u0000') || controls > sample.length / 20)
    return { kind: 'other', description: 'binary data, not text' };
  const trimmed = text.trimStart();
  if (trimmed === '') return { kind: 'json' };
  if (looksLikeChatDevLog(text)) return { kind: 'chatdev-log' };
  if (/^[[{]\s*'/.test(trimmed) || /^\[?\{'[^']*':/.test(trimmed)) {
    return {
      kind: 'json',
      hint: 'a Python value printed with print() or repr() (single quotes, None/True/False), not JSON; write it with json.dump() instead',
    };
  }
  // A JSON string, number or literal at the top: JSON, refused later with the JSON path.
  if (trimmed.startsWith('"')) return { kind: 'json' };
  const firstLine = trimmed.split(/\r?\n/, 1)[0] ?? '';
  if (/^(-?\d|true\b|false\b|null\b)/.test(trimmed) && isJsonValue(firstLine)) return { kind: 'json' };
  const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (
    (trimmed.startsWith('{') || trimmed.startsWith('[')) &&
    lines.length > 1 &&
    isJsonLine(lines[0] as string) &&
    /^[[{]/.test(lines[1] as string)
  ) {
    return {
      kind: 'other',
      description: 'JSON Lines (one JSON document per line); Fleetscope imports one JSON document per file',
    };
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return { kind: 'json' };
  if (/^<(!doctype html|html|head|body)\b/i.test(trimmed))
    return { kind: 'other', description: 'an HTML page' };
  if (/^<\?xml\b/i.test(trimmed)) return { kind: 'other', description: 'an XML document' };
  const first = lines[0] ?? '';
  if (/^\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(first)) {
    return {
      kind: 'other',
      description:
        'a text log in another format (a ChatDev log\'s entries start with "[YYYY-DD-MM HH:MM:SS INFO]")',
    };
  }
  if (first === '---' || /^[A-Za-z_][\w-]*:(\s|$)/.test(first))
    return { kind: 'other', description: 'YAML (or "key: value" text)' };
  const commas = (line: string) => line.split(',').length - 1;
  if (lines.length > 1 && commas(first) >= 2 && commas(lines[1] as string) === commas(first))
    return { kind: 'other', description: 'CSV (comma-separated values)' };
  if (/^#{1,6} /.test(first)) return { kind: 'other', description: 'Markdown text' };
  return { kind: 'other', description: 'plain text' };
}

/** What a file's name says it is, when its extension says anything. */
function nameSuggests(path: string): string | null {
  switch (extname(path).toLowerCase()) {
    case '.json':
      return 'JSON';
    case '.jsonl':
    case '.ndjson':
      return 'JSON Lines';
    case '.log':
      return 'a ChatDev log';
    case '.txt':
      return 'plain text';
    case '.md':
      return 'Markdown';
    case '.html':
    case '.htm':
      return 'an HTML page';
    case '.csv':
      return 'CSV';
    case '.yaml':
    case '.yml':
      return 'YAML';
    default:
      return null;
  }
}

const IMPORTABLE =
  'Fleetscope imports JSON (its own export, AutoGen TaskResult or TeamState, OpenAI message lists, OpenTelemetry traces) and ChatDev logs.';

/** The refusal for a file no importer reads: what its name suggests, what it looks like. */
export function unreadableFile(path: string, look: { description: string }): TransferError {
  const name = basename(path);
  const suggests = nameSuggests(path);
  const same = suggests !== null && look.description.toLowerCase().startsWith(suggests.toLowerCase());
  const lead =
    suggests && !same
      ? `${name} is named like ${suggests} but looks like ${look.description}.`
      : `${name} looks like ${look.description}.`;
  return new TransferError('invalid-input', `${lead} ${IMPORTABLE}`);
}

/** A refusal of a file that started like JSON, with what it really looks like added. */
export function explainRefusal(error: unknown, path: string, hint: string): unknown {
  if (!(error instanceof TransferError) || error.code !== 'invalid-input') return error;
  const name = basename(path);
  // The JSON error already says it is not JSON; the name matters only when it promised JSON.
  const lead =
    nameSuggests(path) === 'JSON'
      ? `${name} is named like JSON but looks like ${hint}.`
      : `${name} looks like ${hint}.`;
  return new TransferError('invalid-input', `${error.message} ${lead}`, { cause: error });
}
