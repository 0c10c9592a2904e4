import { randomUUID } from 'node:crypto';

/** Short, unique, sortable-enough ids: a prefix, then a random UUID. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID()}`;
}
