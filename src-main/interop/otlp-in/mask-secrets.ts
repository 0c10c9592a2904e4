import type { ImportedEvent } from '../../history/ports';

/** Shorter values are ignored: masking them would mangle ordinary words and numbers. */
const MIN_SECRET_LENGTH = 8;
const MASK = '[masked secret]';

/**
 * Masks the values of the API keys this app knows (its providers' keys) wherever they appear in
 * the events a trace became: a traced program's spans can carry them (request parameters,
 * headers recorded as attributes), and nothing Fleetscope stores or shows may.
 */
export function maskSecrets(events: ImportedEvent[], secrets: readonly string[]): ImportedEvent[] {
  const values = usable(secrets);
  if (values.length === 0) return events;
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return maskIn(value, values);
    if (Array.isArray(value)) return value.map(clean);
    if (typeof value !== 'object' || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[clean(key) as string] = clean(item);
    return copy;
  };
  return events.map((event) => clean(event) as ImportedEvent);
}

/** One text (a session's title or task) with the secret values masked. */
export function maskText(text: string, secrets: readonly string[]): string {
  return maskIn(text, usable(secrets));
}

function usable(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((value) => value.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
}

function maskIn(text: string, values: readonly string[]): string {
  let masked = text;
  for (const secret of values) if (masked.includes(secret)) masked = masked.replaceAll(secret, MASK);
  return masked;
}
