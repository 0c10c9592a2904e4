import type { AttributeValue, Attributes } from './span';

/**
 * Reads a span's attributes and remembers which ones it used, so what is left over (the
 * attributes Fleetscope has no place for) can be kept and counted instead of being lost.
 */
export class AttributeReader {
  private readonly taken = new Set<string>();

  constructor(readonly attributes: Attributes) {}

  has(key: string): boolean {
    return key in this.attributes;
  }

  /** The value, marking it used. */
  take(key: string): AttributeValue | undefined {
    if (!(key in this.attributes)) return undefined;
    this.taken.add(key);
    return this.attributes[key];
  }

  /** The first of `keys` present, marking only that one used. */
  first(...keys: string[]): AttributeValue | undefined {
    for (const key of keys) if (key in this.attributes) return this.take(key);
    return undefined;
  }

  /** A string value (numbers and booleans as text), marking it used; undefined when absent. */
  text(...keys: string[]): string | undefined {
    const value = this.first(...keys);
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : stringify(value);
  }

  /** A whole non-negative number, marking it used. */
  count(...keys: string[]): number | undefined {
    const value = this.first(...keys);
    const number = typeof value === 'string' ? Number(value) : value;
    return typeof number === 'number' && Number.isFinite(number) && number >= 0
      ? Math.round(number)
      : undefined;
  }

  /** Marks used every key with this prefix and returns them with the prefix removed. */
  takePrefix(prefix: string): Map<string, AttributeValue> {
    const found = new Map<string, AttributeValue>();
    for (const [key, value] of Object.entries(this.attributes)) {
      if (!key.startsWith(prefix)) continue;
      this.taken.add(key);
      found.set(key.slice(prefix.length), value);
    }
    return found;
  }

  hasPrefix(prefix: string): boolean {
    return Object.keys(this.attributes).some((key) => key.startsWith(prefix));
  }

  /** Marks keys used without reading them (read by classification, say). */
  use(...keys: string[]): void {
    for (const key of keys) if (key in this.attributes) this.taken.add(key);
  }

  /** The attributes nothing used. */
  leftover(): Attributes {
    const rest: Attributes = {};
    for (const [key, value] of Object.entries(this.attributes)) if (!this.taken.has(key)) rest[key] = value;
    return rest;
  }
}

/** Text for a value of any JSON type: strings as they are, anything else as JSON. */
export function stringify(value: AttributeValue | unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** A JSON string parsed, or the value itself when it is not a string holding JSON. */
export function parseJsonish(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return value;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return value;
  }
}

/**
 * Flattened attributes under one prefix (`llm.input_messages.`, `gen_ai.prompt.`) as a list of
 * records by index: `0.message.role` → `[ { 'message.role': … } ]`. Indexes may have gaps.
 */
export function indexed(entries: Map<string, AttributeValue>): Array<Map<string, AttributeValue>> {
  const byIndex = new Map<number, Map<string, AttributeValue>>();
  for (const [key, value] of entries) {
    const match = /^(\d+)\.(.+)$/.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    if (index > 100_000) continue;
    const record = byIndex.get(index) ?? new Map<string, AttributeValue>();
    record.set(match[2] as string, value);
    byIndex.set(index, record);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, record]) => record);
}
