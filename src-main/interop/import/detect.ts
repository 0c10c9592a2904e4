import { taskResultMessages } from './autogen';
import { FLEETSCOPE_FORMAT } from './fleetscope-json';
import { locateOpenAiMessages } from './openai';
import { TRACE_FORMATS, traceFormatOf } from '../span-mapping/trace-file';
import { TransferError } from './transfer-error';
import { isRecord } from './validate';

/** Every format `importFile` reads; also the `source` recorded on the imported session. */
export const IMPORT_FORMATS = [
  'fleetscope-json',
  'autogen-taskresult',
  'autogen-teamstate',
  'openai-messages',
  ...TRACE_FORMATS,
  /** Plain text, recognised by its first line before any JSON is read (file-look.ts). */
  'chatdev-log',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** The formats that are JSON documents, told apart by their shape. */
export type JsonImportFormat = Exclude<ImportFormat, 'chatdev-log'>;

function looksLikeAutogenMessage(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.source === 'string' &&
    typeof value.type === 'string' &&
    !('role' in value)
  );
}

/**
 * Decides the format of a parsed document by its shape. Our own export is normally recognised
 * earlier, while streaming, by its leading `format` key; this catches reordered copies.
 * Throws `invalid-input` naming what was found when nothing matches.
 */
export function detectFormat(value: unknown): JsonImportFormat {
  if (isRecord(value) && value.format === FLEETSCOPE_FORMAT) return 'fleetscope-json';
  if (isRecord(value) && value.type === 'TeamState') return 'autogen-teamstate';
  if (Array.isArray(value) && value.length === 0) {
    throw new TransferError(
      'invalid-input',
      'The file holds an empty list at $: there are no messages to import.',
    );
  }
  const taskResult = taskResultMessages(value);
  if (taskResult && looksLikeAutogenMessage(taskResult.messages[0])) return 'autogen-taskresult';
  if (locateOpenAiMessages(value)) return 'openai-messages';
  const trace = traceFormatOf(value);
  if (trace) return trace;
  const spans = spanLike(value);
  if (spans) {
    throw new TransferError(
      'invalid-input',
      `The file looks like trace spans (${spans}), but not in a form Fleetscope reads: OTLP/JSON ({"resourceSpans": [...]}, as OTLP exporters and the OpenTelemetry Collector write it), a list of ReadableSpan.to_json() objects, or an any-agent trace.`,
    );
  }
  const found = isRecord(value)
    ? `an object with keys ${
        Object.keys(value)
          .slice(0, 8)
          .map((key) => JSON.stringify(key))
          .join(', ') || '(none)'
      }`
    : Array.isArray(value)
      ? 'a list whose first item is neither an AutoGen nor an OpenAI message'
      : `a ${value === null ? 'null' : typeof value}`;
  throw new TransferError(
    'invalid-input',
    `Unrecognized file at $: expected a Fleetscope export, an AutoGen TaskResult or TeamState, an OpenAI message list, an OpenTelemetry trace (OTLP/JSON or a span dump), or a ChatDev log, but found ${found}.`,
  );
}

/** What makes a document look like spans in an unknown dump format, or null. */
function spanLike(value: unknown): string | null {
  const items = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.spans)
      ? value.spans
      : null;
  const first: unknown = items?.[0];
  if (!isRecord(first)) return null;
  const keys = ['spanId', 'span_id', 'traceId', 'trace_id', 'parentSpanId', 'parent_id'].filter(
    (key) => key in first,
  );
  return keys.length > 0 ? `items with ${keys.map((key) => JSON.stringify(key)).join(', ')}` : null;
}
