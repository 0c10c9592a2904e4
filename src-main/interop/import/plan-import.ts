import type { ImportedEvent, ImportedSessionMeta } from '../../history/ports';
import { planChatDevLog } from './chatdev-plan';
import { explainRefusal, lookOf, readHead, unreadableFile } from './file-look';
import { importAutogenTaskResult, importAutogenTeamState } from './autogen';
import { buildImportedEvents, importedTags, inferFleet } from './build-events';
import { SessionCounts } from './count-limits';
import type { ForeignConversation } from './conversation';
import { detectFormat, type ImportFormat } from './detect';
import { FLEETSCOPE_FORMAT, eventsFromArray, fleetscopeMeta, parseExportedEvent } from './fleetscope-json';
import { JsonCursor, type JsonValue } from './json-cursor';
import { JsonTokenReader } from './json-tokens';
import type { ImportLimits } from './limits';
import type { ImportPlan, SessionPlan } from './import-plan';
import { importOpenAiMessages } from './openai';
import {
  TRACE_FORMATS,
  importTraceFile,
  importTraceSpans,
  type TraceFormat,
  type TraceImport,
} from '../span-mapping/trace-file';
import { readTraceLines } from '../span-mapping/trace-lines';
import type { SpanBatch } from '../span-mapping/span';
import { TransferError } from './transfer-error';

export type { ImportPlan, SessionPlan } from './import-plan';

export interface OpenedPlan {
  plan: ImportPlan;
  /** Closes the file (also closed on its own at the end of the input or on an error). */
  close(): void;
}

/**
 * Reads a file far enough to know its format and session header, and returns its events as a
 * lazy iterable. Our own export is streamed event by event when `events` follows the header;
 * other formats are read whole (bounded by `maxHeldBytes`). Message and event counts are
 * checked against the limits as events are produced. Errors are `TransferError`s.
 */
export function openImportPlan(
  path: string,
  fileTime: number,
  limits: ImportLimits,
  onBytesRead?: (bytes: number) => void,
): OpenedPlan {
  // Text formats and files no importer reads are told apart by their first bytes, before JSON.
  const look = lookOf(readHead(path));
  if (look.kind === 'other') {
    // The OpenTelemetry Collector writes traces as JSON Lines: one export request per line.
    const traceLines = look.description.startsWith('JSON Lines') ? readTraceLines(path, limits) : null;
    if (!traceLines) throw unreadableFile(path, look);
    return tracePlan(traceLines, limits);
  }
  if (look.kind === 'chatdev-log') {
    return {
      plan: limited(planChatDevLog(path, fileTime, limits, onBytesRead), limits),
      close: () => undefined,
    };
  }
  const reader = new JsonTokenReader(path, limits, onBytesRead);
  try {
    const plan = planFrom(new JsonCursor(reader, limits.maxHeldBytes), fileTime);
    return { plan: limited(plan, limits), close: () => reader.close() };
  } catch (error) {
    reader.close();
    // JSON Lines whose first line is longer than the head `lookOf` saw: collector trace files.
    const traceLines = error instanceof TransferError ? readTraceLines(path, limits) : null;
    if (traceLines) return tracePlan(traceLines, limits);
    throw look.hint ? explainRefusal(error, path, look.hint) : error;
  }
}

function tracePlan(batch: SpanBatch, limits: ImportLimits): OpenedPlan {
  const sessions = importTraceSpans(batch, 'otlp-json').map(traceSession);
  return { plan: limited({ format: 'otlp-json', sessions }, limits), close: () => undefined };
}

function traceSession(trace: TraceImport): SessionPlan {
  return { meta: trace.meta, events: trace.events, counter: { messages: trace.messageCount } };
}

/** The plan with each session's event and message counts checked against the limits. */
function limited(plan: ImportPlan, limits: ImportLimits): ImportPlan {
  const sessions = plan.sessions.map((session) => ({
    ...session,
    events: limitCounts(session.events, limits),
  }));
  return { format: plan.format, sessions };
}

function planFrom(cursor: JsonCursor, fileTime: number): ImportPlan {
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
      const events = streamRest(cursor, keys, counter);
      return { format: 'fleetscope-json', sessions: [{ meta, events, counter }] };
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
  // The header read so far is small and already turned into meta: it no longer counts.
  cursor.release();
  for (const index of cursor.items('$.events')) {
    const event = parseExportedEvent(cursor.readValue(`$.events[${index}]`), index);
    cursor.release();
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
    const events = eventsFromArray(header.events, counter);
    return { format, sessions: [{ meta: fleetscopeMeta(header), events, counter }] };
  }
  if (isTraceFormat(format)) return { format, sessions: importTraceFile(value, format).map(traceSession) };
  const conversation = convert(format, value, fileTime);
  const fleet = inferFleet(conversation, FLEET_NAMES[format], format);
  const meta: ImportedSessionMeta = {
    title: conversation.title,
    task: conversation.task,
    fleetName: fleet.name,
    source: format,
    createdAt: conversation.createdAt,
    tags: importedTags(conversation),
  };
  const counter = { messages: conversation.messages.length };
  return { format, sessions: [{ meta, events: buildImportedEvents(conversation, fleet), counter }] };
}

function* limitCounts(events: Iterable<ImportedEvent>, limits: ImportLimits): Generator<ImportedEvent> {
  const counts = new SessionCounts(limits);
  for (const event of events) {
    counts.add(event);
    yield event;
  }
}

type ConversationFormat = Exclude<ImportFormat, 'fleetscope-json' | TraceFormat | 'chatdev-log'>;

function isTraceFormat(format: ImportFormat): format is TraceFormat {
  return (TRACE_FORMATS as readonly string[]).includes(format);
}

const FLEET_NAMES: Record<ConversationFormat, string> = {
  'autogen-taskresult': 'Imported AutoGen team',
  'autogen-teamstate': 'Imported AutoGen team',
  'openai-messages': 'Imported OpenAI conversation',
};

function convert(format: ConversationFormat, value: JsonValue, fileTime: number): ForeignConversation {
  switch (format) {
    case 'autogen-taskresult':
      return importAutogenTaskResult(value, fileTime);
    case 'autogen-teamstate':
      return importAutogenTeamState(value, fileTime);
    case 'openai-messages':
      return importOpenAiMessages(value, fileTime);
  }
}
