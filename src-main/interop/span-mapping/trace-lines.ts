import { closeSync, openSync, readSync } from 'node:fs';
import { formatBytes, type ImportLimits } from '../import/limits';
import { TransferError, ioError } from '../import/transfer-error';
import { OtlpShapeError, looksLikeOtlpTraces, readOtlpTraces } from './read-otlp';
import { FILE_SPAN_LIMITS } from './span-limits';
import type { SpanBatch } from './span';

const CHUNK_BYTES = 1024 * 1024;

/**
 * OTLP/JSON Lines, as the OpenTelemetry Collector's file exporter writes traces: one
 * ExportTraceServiceRequest per line. Returns null unless the file's first line is a whole
 * OTLP trace document and another line follows (a single document, even on one line, is read
 * as ordinary JSON). Every line must then be one; the file is read whole, so it may hold at
 * most `maxHeldBytes`.
 */
export function readTraceLines(path: string, limits: ImportLimits): SpanBatch | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw ioError('read', path, error);
  }
  const batch: SpanBatch = { spans: [], rejected: [] };
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let carry = '';
    let lineNumber = 0;
    let documents = 0;
    let total = 0;
    /** The first document waits until a second line shows the file is JSON Lines. */
    let first: { value: unknown; line: number } | null = null;
    const read = (value: unknown, line: number) => {
      try {
        const spans = readOtlpTraces(value, FILE_SPAN_LIMITS);
        batch.spans.push(...spans.spans);
        batch.rejected.push(...spans.rejected);
      } catch (error) {
        if (error instanceof OtlpShapeError)
          throw new TransferError('invalid-input', `Line ${line}: ${error.message}`);
        throw error;
      }
    };
    const take = (line: string): boolean => {
      lineNumber++;
      if (line.trim() === '') return true;
      // A trace export is one object per line. Anything else, or a line nested deeper than the
      // limit, is never handed to JSON.parse: a deeply nested line would cost hundreds of MB.
      if (!withinDepth(line, limits.maxDepth)) {
        if (documents === 0) return false;
        throw new TransferError(
          'too-large',
          `Line ${lineNumber} of the OTLP JSON Lines file is not a trace export object within ${limits.maxDepth} levels.`,
        );
      }
      let value: unknown;
      try {
        value = JSON.parse(line) as unknown;
      } catch {
        if (documents === 0) return false;
        throw new TransferError(
          'invalid-input',
          `Line ${lineNumber} of the OTLP JSON Lines file is not JSON.`,
        );
      }
      if (!looksLikeOtlpTraces(value)) {
        if (documents === 0) return false;
        throw new TransferError(
          'invalid-input',
          `Line ${lineNumber} of the OTLP JSON Lines file is not a trace export (no "resourceSpans").`,
        );
      }
      documents++;
      if (documents === 1) {
        first = { value, line: lineNumber };
        return true;
      }
      if (first) {
        read(first.value, first.line);
        first = null;
      }
      read(value, lineNumber);
      return true;
    };
    for (;;) {
      const bytes = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (bytes === 0) break;
      total += bytes;
      if (total > limits.maxHeldBytes) {
        if (documents === 0) return null;
        throw new TransferError(
          'too-large',
          `The OTLP JSON Lines file is over ${formatBytes(limits.maxHeldBytes)}, the most a trace file may hold.`,
        );
      }
      const lines = (carry + buffer.toString('utf8', 0, bytes)).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) if (!take(line)) return null;
    }
    if (carry.trim() !== '' && !take(carry)) return null;
    return documents > 1 ? batch : null;
  } catch (error) {
    if (error instanceof TransferError) throw error;
    throw ioError('read', path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * True when `line` is a JSON object whose brackets nest at most `maxDepth` deep (strings skipped),
 * checked without parsing it.
 */
function withinDepth(line: string, maxDepth: number): boolean {
  const start = line.search(/\S/);
  if (start < 0 || line[start] !== '{') return false;
  let depth = 0;
  let inString = false;
  for (let i = start; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return false;
    } else if (c === 125 || c === 93) depth--;
  }
  return true;
}
