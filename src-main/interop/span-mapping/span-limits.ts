import type { AttributeValue, TraceSpan } from './span';

/**
 * What one span may hold before it is refused as a whole (never cut short: a span either maps
 * as it was sent or is reported as rejected). The receiver and the file importer share them.
 */
export interface SpanLimits {
  /** Longest string value of one attribute, in UTF-16 code units. */
  maxValueChars: number;
  /** Most attributes on one span, its events' attributes included. */
  maxAttributes: number;
  maxEvents: number;
  /** Longest span or event name. */
  maxNameChars: number;
  /** Deepest nesting of array and key/value list attribute values. */
  maxValueDepth: number;
  /** Timestamps must fall in [earliestMs, latestMs]; spans may last at most maxDurationMs. */
  earliestMs: number;
  latestMs: number;
  maxDurationMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** 2000-01-01: no GenAI trace is older; a zero or tiny timestamp is a bug in the sender. */
export const EARLIEST_SPAN_MS = Date.UTC(2000, 0, 1);

/** Limits for spans received live: nothing may claim to end more than a day from now. */
export function liveSpanLimits(now: number): SpanLimits {
  return { ...BASE_LIMITS, latestMs: now + DAY_MS };
}

/** Limits for spans read from a file (no clock involved, so a file always reads the same). */
export const FILE_SPAN_LIMITS: Readonly<SpanLimits> = Object.freeze({
  ...baseLimits(),
  latestMs: Date.UTC(2100, 0, 1),
});

const BASE_LIMITS = baseLimits();

function baseLimits(): Omit<SpanLimits, 'latestMs'> {
  return {
    maxValueChars: 4 * 1024 * 1024,
    maxAttributes: 4096,
    maxEvents: 1024,
    maxNameChars: 1024,
    maxValueDepth: 16,
    earliestMs: EARLIEST_SPAN_MS,
    maxDurationMs: 7 * DAY_MS,
  };
}

/** Why a span breaks the limits, or null when it is within them. */
export function spanProblem(span: TraceSpan, limits: SpanLimits): string | null {
  if (span.name.length > limits.maxNameChars) {
    return `its name is ${span.name.length} characters long (at most ${limits.maxNameChars})`;
  }
  for (const [label, ms] of [
    ['start', span.startMs],
    ['end', span.endMs],
  ] as const) {
    if (!Number.isFinite(ms) || ms < limits.earliestMs || ms > limits.latestMs) {
      return `its ${label} time ${describeTime(ms)} is outside ${new Date(limits.earliestMs).toISOString()} to ${new Date(limits.latestMs).toISOString()}`;
    }
  }
  if (span.endMs < span.startMs) return 'it ends before it starts';
  if (span.endMs - span.startMs > limits.maxDurationMs) {
    return `it lasts ${Math.round((span.endMs - span.startMs) / DAY_MS)} days (at most ${Math.round(limits.maxDurationMs / DAY_MS)})`;
  }
  if (span.events.length > limits.maxEvents) {
    return `it has ${span.events.length} events (at most ${limits.maxEvents})`;
  }
  let attributes = Object.keys(span.attributes).length;
  for (const event of span.events) {
    attributes += Object.keys(event.attributes).length;
    if (event.name.length > limits.maxNameChars) return 'an event name is too long';
    if (
      !Number.isFinite(event.timeMs) ||
      event.timeMs < limits.earliestMs ||
      event.timeMs > limits.latestMs
    ) {
      return `its event "${event.name.slice(0, 80)}" has the time ${describeTime(event.timeMs)}`;
    }
  }
  if (attributes > limits.maxAttributes) {
    return `it has ${attributes} attributes (at most ${limits.maxAttributes})`;
  }
  const all = [span.attributes, ...span.events.map((event) => event.attributes)];
  for (const record of all) {
    for (const [key, value] of Object.entries(record)) {
      if (key.length > limits.maxNameChars) return `an attribute name is ${key.length} characters long`;
      const problem = valueProblem(value, limits, 0);
      if (problem) return `its attribute "${key.slice(0, 80)}" ${problem}`;
    }
  }
  return null;
}

function valueProblem(value: AttributeValue, limits: SpanLimits, depth: number): string | null {
  if (typeof value === 'string') {
    return value.length > limits.maxValueChars
      ? `holds ${value.length} characters (at most ${limits.maxValueChars})`
      : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= limits.maxValueDepth) return `nests deeper than ${limits.maxValueDepth} levels`;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) {
    const problem = valueProblem(item, limits, depth + 1);
    if (problem) return problem;
  }
  return null;
}

function describeTime(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) || Math.abs(ms) > 8.64e15 ? `${ms} ms` : date.toISOString();
}
