import type { z } from 'zod';
import { TransferError } from './transfer-error';

/** Appends segments to a JSON path: `$.a[3]["b/c"]`. */
export function jsonPath(base: string, ...segments: Array<string | number>): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** Parses with a schema; a failure names the first offending JSON path and what was wrong. */
export function parseAt<T extends z.ZodType>(schema: T, value: unknown, path: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = jsonPath(
    path,
    ...((issue?.path ?? []).filter((s) => typeof s !== 'symbol') as Array<string | number>),
  );
  throw new TransferError(
    'invalid-input',
    `Invalid file at ${where}: ${issue?.message ?? 'unexpected value'}.`,
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** First line of a task, shortened for use as a session title. */
export function titleFrom(task: string, fallback: string): string {
  const line = task.trim().split('\n')[0]?.trim() ?? '';
  if (!line) return fallback;
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
