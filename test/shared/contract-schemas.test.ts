import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CHANNEL_NAMES,
  contract,
  eventChannels,
  fleetFileInputSchema,
  httpUrlSchema,
  jsonValueSchema,
} from '@shared/contract';

/** The parts of zod 4's internal definition the walk reads. */
interface Def {
  type: string;
  [key: string]: unknown;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isSchema = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && '_zod' in value;

/**
 * Every schema reachable from `root` with the path that reaches it (each schema once, so the
 * recursive fleet and JSON schemas end). With `inputSide`, a pipe is followed into its input only:
 * what its output side checks has already passed the input side's limits.
 */
function walk(root: z.ZodType, inputSide = false): Array<{ path: string; def: Def }> {
  const seen = new Set<unknown>();
  const found: Array<{ path: string; def: Def }> = [];
  const visit = (schema: z.ZodType, path: string) => {
    if (seen.has(schema)) return;
    seen.add(schema);
    const def = defOf(schema);
    found.push({ path, def });
    const children: Array<[unknown, string]> = [];
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape as Record<string, unknown>))
          children.push([child, `${path}.${key}`]);
        children.push([def.catchall, `${path}.*`]);
        break;
      case 'lazy':
        children.push([(def.getter as () => unknown)(), path]);
        break;
      case 'pipe':
        children.push([def.in, path]);
        if (!inputSide) children.push([def.out, path]);
        break;
      case 'union':
        (def.options as unknown[]).forEach((option, index) => children.push([option, `${path}|${index}`]));
        break;
      default:
        for (const [key, value] of Object.entries(def)) {
          if (key === 'checks') continue;
          if (Array.isArray(value)) value.forEach((item) => children.push([item, `${path}.${key}`]));
          else children.push([value, `${path}.${key}`]);
        }
    }
    for (const [child, childPath] of children) if (isSchema(child)) visit(child, childPath);
  };
  visit(root, '');
  return found;
}

const OPAQUE = new Set(['unknown', 'any', 'custom']);
const opaqueParts = (schema: z.ZodType) =>
  walk(schema)
    .filter(({ def }) => OPAQUE.has(def.type))
    .map(({ path, def }) => `${path || '(root)'}: ${def.type}`);

/** Strings an input schema accepts without a length limit. */
const unboundedStrings = (schema: z.ZodType) =>
  walk(schema, true)
    .filter(({ def }) => def.type === 'string')
    .filter(({ def }) => {
      const checks = (def.checks ?? []) as Array<{ _zod: { def: { check: string } } }>;
      return !checks.some((check) => ['max_length', 'length_equals'].includes(check._zod.def.check));
    })
    .map(({ path }) => path || '(root)');

describe('the contract declares what it checks', () => {
  it.each(CHANNEL_NAMES)('%s has no unknown, any or custom schema in its input or output', (channel) => {
    expect(opaqueParts(contract[channel].input)).toEqual([]);
    expect(opaqueParts(contract[channel].output)).toEqual([]);
  });

  it.each(Object.keys(eventChannels) as Array<keyof typeof eventChannels>)(
    'event %s has no unknown, any or custom schema in its payload',
    (channel) => {
      expect(opaqueParts(eventChannels[channel])).toEqual([]);
    },
  );

  it.each(CHANNEL_NAMES)('%s bounds the length of every string it accepts', (channel) => {
    expect(unboundedStrings(contract[channel].input)).toEqual([]);
  });

  it('finds what it looks for (the walk is not vacuous)', async () => {
    const { z } = await import('zod');
    const leaky = z.object({ a: z.array(z.lazy(() => z.object({ b: z.unknown() }))) });
    expect(opaqueParts(leaky)).toEqual(['.a.element.b: unknown']);
    expect(opaqueParts(z.object({ c: z.custom<string>() }).optional())).toEqual(['.innerType.c: custom']);
    expect(
      unboundedStrings(z.object({ s: z.string().min(1), t: z.string().max(3), u: z.enum(['x']) })),
    ).toEqual(['.s']);
  });
});

describe('shared field schemas', () => {
  it('accepts http and https addresses only', () => {
    for (const url of ['http://localhost:11434/v1', 'https://api.openai.com/v1'])
      expect(httpUrlSchema.safeParse(url).success).toBe(true);
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'ftp://example.com',
      ' http://example.com',
      'http://',
      `https://example.com/${'a'.repeat(2000)}`,
    ])
      expect(httpUrlSchema.safeParse(url).success, url).toBe(false);
  });

  it('takes a fleet file as a JSON object and nothing else', () => {
    expect(fleetFileInputSchema.safeParse({ version: 1, agents: [{ name: 'a' }], x: null }).success).toBe(
      true,
    );
    for (const value of [[], 'fleet', 7, null, new Date(), new Map(), { f: () => 1 }, { n: Number.NaN }])
      expect(fleetFileInputSchema.safeParse(value).success).toBe(false);
    expect(fleetFileInputSchema.safeParse({ ['k'.repeat(201)]: 1 }).success).toBe(false);
    expect(jsonValueSchema.safeParse('x'.repeat(200_001)).success).toBe(false);
  });

  it('never lets a __proto__ key reach an object prototype', () => {
    const parsed = fleetFileInputSchema.parse(JSON.parse('{"__proto__": {"polluted": true}, "name": "x"}'));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
