/** A value that must never be recorded, and the name shown in its place. */
export interface Secret {
  value: string;
  /** What the value is, e.g. the environment variable it came from: `[masked OPENAI_API_KEY]`. */
  label: string;
}

/** Shorter values are ignored: masking them would mangle ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces secret values (API keys) in text a model produced before it is recorded or relayed.
 * Whole texts are masked in one left-to-right pass (longest secret first where two start at the
 * same place). Streamed text is masked per message: the tail of what arrived that could be the
 * start of a secret is held back until the next piece (or the message's end) shows what it is,
 * so a key split across pieces is caught and the pieces still add up to the masked whole.
 */
export class SecretMasker {
  private readonly pattern: RegExp | null;
  private readonly markers = new Map<string, string>();
  private readonly values: string[];
  /** First characters of the secrets: only there can one begin. */
  private readonly starts: Set<string>;
  /** Held-back (unmasked) tails of streaming messages, by message id; never recorded. */
  private readonly held = new Map<string, string>();

  constructor(secrets: readonly Secret[]) {
    const usable = secrets.filter((secret) => secret.value.length >= MIN_SECRET_LENGTH);
    for (const secret of usable)
      if (!this.markers.has(secret.value)) this.markers.set(secret.value, `[masked ${secret.label}]`);
    this.values = [...this.markers.keys()].sort((a, b) => b.length - a.length);
    this.starts = new Set(this.values.map((value) => value[0] as string));
    this.pattern = this.values.length > 0 ? new RegExp(this.values.map(escapeRegExp).join('|'), 'g') : null;
  }

  /** False when there is nothing to mask (every method then returns its input). */
  get active(): boolean {
    return this.pattern !== null;
  }

  mask(text: string): string {
    if (this.pattern === null || text.length < MIN_SECRET_LENGTH) return text;
    return text.replace(this.pattern, (value) => this.markers.get(value) ?? value);
  }

  /**
   * Every string inside `value` masked. Objects and arrays are copied only where something
   * changed, so events without secrets pass through untouched.
   */
  maskDeep<T>(value: T): T {
    if (this.pattern === null) return value;
    return this.walk(value) as T;
  }

  /** The part of a streamed piece that is safe to emit now, masked; the rest waits for `delta` or `drain`. */
  delta(messageId: string, text: string): string {
    if (this.pattern === null) return text;
    const raw = (this.held.get(messageId) ?? '') + text;
    const boundary = this.settledLength(raw);
    if (boundary < raw.length) this.held.set(messageId, raw.slice(boundary));
    else this.held.delete(messageId);
    return this.mask(raw.slice(0, boundary));
  }

  /** What is still held back for a message, masked; forgets the message. */
  drain(messageId: string): string {
    const rest = this.held.get(messageId) ?? '';
    this.held.delete(messageId);
    return this.mask(rest);
  }

  /** Forgets every held-back tail (the run ended). */
  clear(): void {
    this.held.clear();
  }

  /**
   * How much of `raw` masks the same whatever text follows: everything before the first place a
   * secret could begin and run past the end, moved past a match that straddles that place (such
   * a match is settled, and the whole-text pass would resume after it).
   */
  private settledLength(raw: string): number {
    const longest = this.values[0]?.length ?? 0;
    let open = raw.length;
    for (let start = Math.max(0, raw.length - longest + 1); start < raw.length; start += 1) {
      if (!this.starts.has(raw[start] as string)) continue;
      const tail = raw.slice(start);
      if (this.values.some((value) => value.length > tail.length && value.startsWith(tail))) {
        open = start;
        break;
      }
    }
    if (open === raw.length || this.pattern === null) return open;
    for (const match of raw.matchAll(this.pattern)) {
      const end = match.index + match[0].length;
      if (match.index < open && end > open) return end;
      if (match.index >= open) break;
    }
    return open;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      value.forEach((item: unknown, index) => {
        const masked = this.walk(item);
        if (masked !== item) (copy ??= [...value])[index] = masked;
      });
      return copy ?? value;
    }
    if (value !== null && typeof value === 'object') {
      let copy: Record<string, unknown> | null = null;
      for (const [key, item] of Object.entries(value)) {
        const masked = this.walk(item);
        if (masked !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = masked;
      }
      return copy ?? value;
    }
    return value;
  }
}
