import { statSync } from 'node:fs';
import type { ImportedEvent, ImportedSessionMeta, SessionWriter } from '../ports';
import { importAutogenTaskResult, importAutogenTeamState } from './autogen';
import { buildImportedEvents, inferFleet } from './build-events';
import type { ForeignConversation } from './conversation';
import { detectFormat, type ImportFormat } from './detect';
import { FLEETSCOPE_FORMAT, eventsFromArray, fleetscopeMeta, parseExportedEvent } from './fleetscope-json';
import { JsonCursor, type JsonValue } from './json-cursor';
import { JsonTokenReader } from './json-tokens';
import { importOpenAiMessages } from './openai';
import { TransferError, ioError } from './transfer-error';

export interface ImportOptions {
  /** Bytes read so far and the file size. */
  onProgress?: (done: number, total: number) => void;
}

export interface ImportResult {
  sessionId: string;
  format: ImportFormat;
  messageCount: number;
}

interface ImportPlan {
  format: ImportFormat;
  meta: ImportedSessionMeta;
  events: Iterable<ImportedEvent>;
  counter: { messages: number };
}

/**
 * Imports one file as a new read-only session. The format is detected; our own export is
 * streamed event by event, other formats are small and read whole. Events reach
 * `SessionWriter.importSession` lazily, and any bad input (even late in a huge file) throws from
 * inside that call, so the store's transaction keeps nothing. Errors are `TransferError`s.
 */
export async function importFile(
  path: string,
  writer: SessionWriter,
  options: ImportOptions = {},
): Promise<ImportResult> {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const missing = typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
    throw missing ? new TransferError('not-found', `No file at ${path}.`) : ioError('read', path, error);
  }
  if (!stats.isFile()) throw new TransferError('invalid-input', `${path} is not a file.`);
  if (stats.size === 0) throw new TransferError('invalid-input', `${path} is empty (0 bytes at offset 0).`);
  const total = stats.size;
  const reader = new JsonTokenReader(path, (done) => options.onProgress?.(done, total));
  try {
    const plan = planImport(new JsonCursor(reader), Math.round(stats.mtimeMs));
    const sessionId = writer.importSession(plan.meta, plan.events);
    options.onProgress?.(total, total);
    return { sessionId, format: plan.format, messageCount: plan.counter.messages };
  } finally {
    reader.close();
  }
}

function planImport(cursor: JsonCursor, fileTime: number): ImportPlan {
  const first = cursor.peek();
  if (first === null)
    throw new TransferError('invalid-input', 'The file holds only whitespace: expected a JSON document.');
  if (first.name === 'startObject') return planFromObject(cursor, fileTime);
  if (first.name !== 'startArray') {
    throw new TransferError(
      'invalid-input',
      'Invalid file at $: expected an object or an array at the top level.',
    );
  }
  const value = cursor.readValue('$');
  cursor.expectEnd();
  return planFromValue(value, fileTime);
}

/**
 * Walks the top-level object key by key. When `events` arrives after a fleetscope header and
 * session, the rest of the file is streamed; otherwise the whole document is read and detected.
 */
function planFromObject(cursor: JsonCursor, fileTime: number): ImportPlan {
  const header: Record<string, JsonValue> = {};
  const keys = cursor.keys('$');
  for (let step = keys.next(); !step.done; step = keys.next()) {
    const key = step.value;
    if (key === 'events' && header.format === FLEETSCOPE_FORMAT && header.session !== undefined) {
      const counter = { messages: 0 };
      const meta = fleetscopeMeta(header);
      return { format: 'fleetscope-json', meta, events: streamRest(cursor, keys, counter), counter };
    }
    header[key] = cursor.readValue(`$.${key}`);
  }
  cursor.expectEnd();
  return planFromValue(header, fileTime);
}

function* streamRest(
  cursor: JsonCursor,
  keys: Generator<string>,
  counter: { messages: number },
): Generator<ImportedEvent> {
  for (const index of cursor.items('$.events')) {
    const event = parseExportedEvent(cursor.readValue(`$.events[${index}]`), index);
    if (event.kind === 'message.completed') counter.messages++;
    yield event;
  }
  // Later keys (a materialized `messages` list, extensions) are derived data: checked, not kept.
  for (let step = keys.next(); !step.done; step = keys.next()) cursor.skipValue(`$.${step.value}`);
  cursor.expectEnd();
}

function planFromValue(value: JsonValue, fileTime: number): ImportPlan {
  const format = detectFormat(value);
  if (format === 'fleetscope-json') {
    const header = value as Record<string, JsonValue>;
    const counter = { messages: 0 };
    return { format, meta: fleetscopeMeta(header), events: eventsFromArray(header.events, counter), counter };
  }
  const conversation = convert(format, value, fileTime);
  const fleet = inferFleet(conversation, FLEET_NAMES[format], format);
  const meta: ImportedSessionMeta = {
    title: conversation.title,
    task: conversation.task,
    fleetName: fleet.name,
    source: format,
    createdAt: conversation.createdAt,
    tags: ['imported'],
  };
  const counter = { messages: conversation.messages.length };
  return { format, meta, events: buildImportedEvents(conversation, fleet), counter };
}

const FLEET_NAMES: Record<Exclude<ImportFormat, 'fleetscope-json'>, string> = {
  'autogen-taskresult': 'Imported AutoGen team',
  'autogen-teamstate': 'Imported AutoGen team',
  'openai-messages': 'Imported OpenAI conversation',
};

function convert(
  format: Exclude<ImportFormat, 'fleetscope-json'>,
  value: JsonValue,
  fileTime: number,
): ForeignConversation {
  switch (format) {
    case 'autogen-taskresult':
      return importAutogenTaskResult(value, fileTime);
    case 'autogen-teamstate':
      return importAutogenTeamState(value, fileTime);
    case 'openai-messages':
      return importOpenAiMessages(value, fileTime);
  }
}
