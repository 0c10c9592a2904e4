import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { z } from 'zod';
import { CHANNEL_NAMES, contract, MAX_PAYLOAD_BYTES, type ChannelName } from '@shared/contract';
import { callChecked } from '../../helpers/checked-dispatch';
import { assertContractAnswer } from '../../helpers/contract-answer';
import { deriveArbitrary, type FieldHint } from '../../helpers/contract-arbitraries';
import { startContractClients, type ContractClients } from '../../helpers/contract-clients';

/**
 * Every channel of the contract, taken from the contract itself (a new channel is in this test
 * the moment it is declared), called through both bindings with payloads derived from its input
 * schema: mostly valid ones naming the real sessions and fleets of the store (or prefixes of them,
 * or ids nothing has), and some with one mistake somewhere. Each answer is within the contract;
 * an invalid payload is refused as invalid input; an unknown id is not found; a refused call and
 * any query leave the store as it was.
 */

/** FLEETSCOPE_FUZZ_RUNS raises it for a longer search (the default keeps the tier quick). */
const RUNS_PER_CHANNEL = Number(process.env.FLEETSCOPE_FUZZ_RUNS) || 30;
const CLI = { surface: 'cli' } as const;
/** An id no session, fleet or example has. */
const UNKNOWN_ID = 'no-such-id-0000';
/** Fields that name a stored thing by id. */
const ID_FIELDS = new Set(['id', 'ids', 'sessionId', 'a', 'b', 'fleetId']);

const defType = (schema: z.ZodType) =>
  (schema as unknown as { _zod: { def: { type: string } } })._zod.def.type;
const enumValues = (schema: z.ZodType) =>
  Object.values(
    (schema as unknown as { _zod: { def: { entries?: Record<string, string> } } })._zod.def.entries ?? {},
  );

/** The id fields of a payload (top level, and the fleet source of a run), as the handler reads them. */
function namedIds(payload: unknown): string[] {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(payload)) {
    if (!ID_FIELDS.has(key) && key !== 'source') continue;
    if (typeof value === 'string') found.push(value);
    if (Array.isArray(value)) found.push(...value.filter((item): item is string => typeof item === 'string'));
    if (key === 'source') found.push(...namedIds(value));
  }
  return found;
}

describe('every channel of the contract, with payloads derived from its input schema', () => {
  let clients: ContractClients;
  /** A seed session in the app's own export format, for imports. */
  let exported = '';
  /** What the store holds now, refreshed after every call (calls delete, fork and start sessions). */
  const known = { sessions: [] as string[], fleets: [] as string[], examples: [] as string[] };

  const refresh = async () => {
    const { sessions, fleets } = await clients.snapshot();
    known.sessions = sessions.items.map((item) => item.id);
    known.fleets = fleets.filter((fleet) => !fleet.example).map((fleet) => fleet.id);
    known.examples = fleets.filter((fleet) => fleet.example).map((fleet) => fleet.id);
  };
  const pick = (list: () => string[]) =>
    fc.nat().map((index) => {
      const items = list();
      return items.length === 0 ? UNKNOWN_ID : items[index % items.length]!;
    });

  const hint: FieldHint = (key, schema) => {
    const type = defType(schema);
    if (type === 'enum' && enumValues(schema).includes('openai'))
      // Provider presets on loopback only: a call to openai.com or openrouter.ai would leave the machine.
      return fc.constantFrom('scripted', 'ollama');
    // The seed sessions hold a handful of messages: fork inside them as often as past their end.
    if (key === 'atMessage') return fc.integer({ min: 1, max: 5 });
    if (type !== 'string') return undefined;
    if (ID_FIELDS.has(key)) {
      const session = pick(() => known.sessions);
      return fc.oneof(
        { arbitrary: session, weight: 4 },
        session.map((id) => id.slice(0, 8)),
        session.map((id) => `${id}x`),
        pick(() => known.fleets),
        fc.constant(UNKNOWN_ID),
      );
    }
    if (key === 'example')
      return fc.oneof(
        pick(() => known.examples),
        fc.constant(UNKNOWN_ID),
      );
    if (key === 'agent') return fc.constantFrom('echo', 'mirror', 'nobody', 'team/echo');
    if (key === 'content')
      // A real export of a seed session, whole or cut short anywhere: a refused import keeps nothing.
      return fc.oneof(
        fc.constant(exported),
        fc.nat().map((cut) => exported.slice(0, cut % exported.length)),
        fc.string({ maxLength: 40 }),
      );
    return undefined;
  };

  beforeAll(async () => {
    clients = await startContractClients();
    await refresh();
    const { dispatcher } = clients.running.app;
    const file = await callChecked(
      dispatcher,
      'sessions.export',
      { id: known.sessions[0], format: 'json' },
      CLI,
    );
    exported = readFileSync(file.path, 'utf8');
  });
  afterAll(async () => {
    await clients?.stop();
  });

  it('derives payloads its schema accepts for every channel (so calls get past validation)', () => {
    for (const channel of CHANNEL_NAMES) {
      const { input } = contract[channel];
      const samples = fc.sample(deriveArbitrary(input, { mistakes: false, hint }), { numRuns: 40, seed: 14 });
      const accepted = samples.filter((payload) => input.safeParse(payload ?? {}).success);
      // Only recursion cut short (deeply nested stop conditions) may make one invalid. A fixed
      // seed: the share is a property of the derivation, not of one draw.
      expect(accepted.length, channel).toBeGreaterThanOrEqual(30);
    }
  });

  it('refuses to derive a schema type it does not know, instead of skipping the field', () => {
    const withBigInt = z.object({ id: z.string().max(5), n: z.bigint() }).strict();
    expect(() => deriveArbitrary(withBigInt, { mistakes: false })).toThrow(/zod bigint schema \(field "n"\)/);
  });

  it.each(CHANNEL_NAMES)(
    '%s answers within the contract and changes nothing when it refuses',
    async (name) => {
      const channel: ChannelName = name;
      const spec = contract[channel];
      // Earlier channels may have deleted the seed session.
      if (known.sessions.length === 0) {
        await clients.seedSession();
        await refresh();
      }
      // A missing payload (null or undefined) is the empty input, as the dispatcher reads it.
      const validates = (payload: unknown) => spec.input.safeParse(payload ?? {}).success;
      const payloads = fc.oneof(
        deriveArbitrary(spec.input, { mistakes: false, hint }),
        deriveArbitrary(spec.input, { mistakes: true, hint }).filter((payload) => !validates(payload)),
      );
      await fc.assert(
        fc.asyncProperty(payloads, fc.boolean(), async (payload, socketWanted) => {
          const text = JSON.stringify(payload) ?? 'null';
          // A frame past the socket's limit closes it (large imports go by HTTP upload): IPC takes those.
          const viaSocket = socketWanted && text.length < MAX_PAYLOAD_BYTES;
          const body: unknown = viaSocket ? JSON.parse(text) : payload;
          const valid = validates(body);
          const before = await clients.snapshot();
          const result = viaSocket
            ? await clients.overSocket(channel, body)
            : await clients.overIpc(channel, body);
          assertContractAnswer(channel, result);
          if (!valid) expect(result, 'an invalid payload is refused').toMatchObject({ ok: false });
          if (!valid && !result.ok) expect(['invalid-input', 'too-large']).toContain(result.error.code);
          if (valid && namedIds(body).includes(UNKNOWN_ID))
            expect(result, 'an unknown id is not found').toMatchObject({
              ok: false,
              error: { code: 'not-found' },
            });
          await clients.idle();
          if (!result.ok || spec.kind === 'query') expect(await clients.snapshot()).toEqual(before);
          await refresh();
        }),
        { numRuns: RUNS_PER_CHANNEL },
      );
    },
    // An import starts a worker (about half a second a call on this machine).
    90_000,
  );
});
