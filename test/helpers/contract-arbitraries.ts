import fc from 'fast-check';
import type { z } from 'zod';

/**
 * fast-check arbitraries derived from a channel's zod input schema, so a property over the contract
 * reaches every field of every channel without a hand-kept list: mostly valid values (real ids
 * where the caller supplies them, edge numbers, longest strings) with, when asked, a small chance
 * at every node of one mistake (a string one over its limit, a number out of range or fractional,
 * a missing or extra key, a value of the wrong type). Whether the result is valid is for the caller
 * to ask the schema; nothing here promises either way.
 *
 * zod 4's definitions are read directly (no library derives arbitraries from zod 4). A schema type
 * this walk does not know throws, so a new kind of field cannot be skipped in silence.
 */

/** The parts of zod 4's internal definition the walk reads. */
interface Def {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  [key: string]: unknown;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const optionalIn = (schema: z.ZodType): boolean =>
  (schema as unknown as { _zod: { optin?: string } })._zod.optin === 'optional';

/** An arbitrary for a field named `key`, or undefined for the one derived from its schema. */
export type FieldHint = (key: string, schema: z.ZodType) => fc.Arbitrary<unknown> | undefined;

export interface DeriveOptions {
  /** Give each node a small chance of one mistake. */
  mistakes: boolean;
  hint?: FieldHint;
}

/** Keeps generated values small: deeper recursion (fleet files, stop conditions) ends in null. */
const MAX_DEPTH = 6;
/** Longest string or array generated apart from the exact limits. */
const SMALL = 6;
/**
 * Strings are drawn at their exact limit (and one past it) up to this length; a longer limit (a
 * whole import file) gets a string of this length instead, so a run stays quick.
 */
const LONGEST = 200_000;
/** Keys objects gain by mistake: unknown fields and prototype names. */
const STRAY_KEYS = ['extra', '__proto__', 'constructor', 'toString'];

/**
 * Loopback URLs on a port nothing listens on: a URL field never sends a call off the machine (a
 * generated host could be anyone's), and a request to it is refused at once.
 */
export const CLOSED_LOOPBACK_URLS = ['http://127.0.0.1:9/v1', 'https://127.0.0.1:9', 'http://[::1]:9/x'];

const wrongType = fc.constantFrom<unknown>(null, 7, 'text', true, [], {}, -1);

function checksOf(def: Def): CheckDef[] {
  return (def.checks ?? []).map((check) => check._zod.def);
}

/** `{ key: value }` with `key` as an own property even for `__proto__` (as JSON.parse makes it). */
function withOwnKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

export function deriveArbitrary(schema: z.ZodType, options: DeriveOptions): fc.Arbitrary<unknown> {
  return derive(schema, '', 0, options);
}

function derive(
  schema: z.ZodType,
  key: string,
  depth: number,
  options: DeriveOptions,
): fc.Arbitrary<unknown> {
  const hinted = options.hint?.(key, schema);
  const valid = hinted ?? validOf(schema, key, depth, options);
  if (!options.mistakes) return valid;
  const mistakes = mistakesOf(schema, valid, key, depth, options);
  if (!mistakes) return valid;
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: mistakes, weight: 1 });
}

function validOf(
  schema: z.ZodType,
  key: string,
  depth: number,
  options: DeriveOptions,
): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const child = (inner: unknown, childKey = key) => derive(inner as z.ZodType, childKey, depth + 1, options);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([name, field]) => [name, child(field, name)]),
      );
      const requiredKeys = Object.entries(shape)
        .filter(([, field]) => !optionalIn(field))
        .map(([name]) => name);
      return fc.record(fields, { requiredKeys });
    }
    case 'string':
      return stringOf(def);
    case 'number':
      return numberOf(def);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string | number>));
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'array': {
      const checks = checksOf(def);
      const min = Number(checks.find((check) => check.check === 'min_length')?.minimum ?? 0);
      const max = Number(checks.find((check) => check.check === 'max_length')?.maximum ?? SMALL);
      if (depth >= MAX_DEPTH) return fc.constant([]);
      return fc.array(child(def.element), { minLength: min, maxLength: Math.max(min, Math.min(max, SMALL)) });
    }
    case 'record': {
      if (depth >= MAX_DEPTH) return fc.constant({});
      return fc.dictionary(child(def.keyType) as fc.Arbitrary<string>, child(def.valueType), { maxKeys: 3 });
    }
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map((option) => child(option)));
    case 'optional':
    case 'default':
      return child(def.innerType);
    case 'nullable':
      return fc.oneof(fc.constant(null), child(def.innerType));
    case 'pipe':
      // The input side is what a caller sends; the output side only narrows it.
      return child(def.in);
    case 'lazy': {
      if (depth >= MAX_DEPTH) return fc.constant(null);
      let built: fc.Arbitrary<unknown> | undefined;
      // Built on first use: a recursive schema would otherwise derive itself for ever.
      return fc.constant(null).chain(() => (built ??= child((def.getter as () => z.ZodType)())));
    }
    case 'never':
      return fc.constant(undefined);
    default:
      throw new Error(`no arbitrary for a zod ${def.type} schema (field "${key}")`);
  }
}

function stringOf(def: Def): fc.Arbitrary<string> {
  const checks = checksOf(def);
  const min = Number(checks.find((check) => check.check === 'min_length')?.minimum ?? 0);
  const max = Number(checks.find((check) => check.check === 'max_length')?.maximum ?? 10_000);
  const pattern = checks.find((check) => check.check === 'string_format' && check.format === 'regex')
    ?.pattern as RegExp | undefined;
  if (pattern?.source.startsWith('^https?')) return fc.constantFrom(...CLOSED_LOOPBACK_URLS);
  if (pattern) return fc.stringMatching(pattern).filter((text) => text.length >= min && text.length <= max);
  return fc.oneof(
    fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, SMALL * 4)) }),
    fc.constant('x'.repeat(Math.min(max, LONGEST))),
    fc
      .constantFrom(' padded ', '__proto__', '<b>bold</b>', "'; DROP TABLE sessions; --")
      .filter((text) => text.length >= min && text.length <= max),
  );
}

interface NumberBounds {
  min: number;
  max: number;
  integer: boolean;
}

function boundsOf(def: Def): NumberBounds {
  let min = -1e9;
  let max = 1e9;
  let integer = false;
  for (const check of checksOf(def)) {
    if (check.check === 'greater_than') {
      const value = Number(check.value);
      min = check.inclusive ? value : value + (Number.isInteger(value) ? 1 : 1e-6);
    } else if (check.check === 'less_than') {
      const value = Number(check.value);
      max = check.inclusive ? value : value - (Number.isInteger(value) ? 1 : 1e-6);
    } else if (check.check === 'number_format') {
      integer = true;
      min = Math.max(min, Number(check.minimum ?? min));
      max = Math.min(max, Number(check.maximum ?? max));
    }
  }
  // The format's own limits are ±2^53; keep the edges but draw most values near the low end.
  return {
    min: Math.max(min, -Number.MAX_SAFE_INTEGER),
    max: Math.min(max, Number.MAX_SAFE_INTEGER),
    integer,
  };
}

function numberOf(def: Def): fc.Arbitrary<number> {
  const { min, max, integer } = boundsOf(def);
  const near = Math.min(max, Math.max(min, 0) + 60);
  if (integer) {
    const low = Math.ceil(min);
    const high = Math.floor(max);
    return fc.oneof(
      fc.integer({ min: Math.max(low, Math.min(0, high)), max: Math.floor(near) }),
      fc.constantFrom(low, high),
      fc.integer({ min: low, max: high }),
    );
  }
  return fc.oneof(
    fc.double({ min, max: near, noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(min, max),
  );
}

/** One mistake for this node, or undefined where the node has no limit to break. */
function mistakesOf(
  schema: z.ZodType,
  valid: fc.Arbitrary<unknown>,
  key: string,
  depth: number,
  options: DeriveOptions,
): fc.Arbitrary<unknown> | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const required = Object.keys(shape).filter((name) => !optionalIn(shape[name]!));
      const strayValue = fc.oneof(wrongType, validOf(schema, key, depth, options));
      const extra = fc
        .tuple(valid, fc.constantFrom(...STRAY_KEYS), strayValue)
        .map(([value, stray, strayField]) => withOwnKey(value as Record<string, unknown>, stray, strayField));
      const missing =
        required.length === 0
          ? undefined
          : fc.tuple(valid, fc.constantFrom(...required)).map(([value, dropped]) => {
              const copy = { ...(value as Record<string, unknown>) };
              delete copy[dropped];
              return copy;
            });
      return fc.oneof(extra, wrongType, ...(missing ? [missing] : []));
    }
    case 'string': {
      const checks = checksOf(def);
      const min = Number(checks.find((check) => check.check === 'min_length')?.minimum ?? 0);
      const max = Number(checks.find((check) => check.check === 'max_length')?.maximum ?? 10_000);
      return fc.oneof(
        wrongType,
        ...(max < LONGEST ? [fc.constant('x'.repeat(max + 1))] : []),
        ...(min > 0 ? [fc.constantFrom('', '   ')] : []),
        fc.constantFrom('javascript:alert(1)', 'file:///etc/passwd', '\u0000'),
      );
    }
    case 'number': {
      const { min, max } = boundsOf(def);
      return fc.constantFrom<unknown>(min - 1, max + 1, 0.5, -0.5, '3', Number.NaN, Infinity, null);
    }
    case 'boolean':
      return fc.constantFrom<unknown>('true', 1, null);
    case 'enum':
    case 'literal':
      return fc.constantFrom<unknown>('nope', '', 0, null);
    case 'array': {
      const checks = checksOf(def);
      const max = checks.find((check) => check.check === 'max_length')?.maximum;
      const tooMany =
        max === undefined
          ? []
          : [
              fc
                .array(validOf(defOf(schema).element as z.ZodType, key, MAX_DEPTH, options), {
                  minLength: 1,
                  maxLength: 1,
                })
                .map((items) => Array.from({ length: Number(max) + 1 }, () => items[0])),
            ];
      return fc.oneof(wrongType, fc.constant([undefined]), ...tooMany);
    }
    case 'record':
      return fc.oneof(wrongType, fc.constant(['not', 'a', 'record']));
    default:
      return undefined;
  }
}
