import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHANNEL_NAMES } from '@shared/contract';
import { assertContractAnswer } from '../../helpers/contract-answer';
import { startContractClients, type ContractClients } from '../../helpers/contract-clients';

/**
 * Random and hostile payloads through the dispatcher behind both bindings (a real web host's
 * WebSocket, and the desktop IPC binding on a fake ipcMain), against one real app: every answer is
 * a valid result of the channel or a typed error, and nothing a refused call carried changes the
 * store. Near-valid calls of every channel, derived from the contract, are in
 * contract-derived-calls.test.ts.
 */

const RUNS = 150;

/** Field names the contract uses, so random objects often hit real fields with wrong values. */
const FIELDS = [
  'id',
  'ids',
  'sessionId',
  'fleet',
  'source',
  'task',
  'title',
  'tags',
  'search',
  'baseUrl',
  'key',
  'format',
  'afterSeq',
  'seq',
  'limit',
  'content',
  'fileName',
  'theme',
  'action',
  'requestId',
  'text',
  'context',
  'version',
  'agents',
];
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

const key = fc.oneof(fc.constantFrom(...FIELDS, ...HOSTILE_KEYS), fc.string({ maxLength: 12 }));
const hugeString = fc.constantFrom(300_000, 1_000_000).map((length) => 'x'.repeat(length));
const hostileString = fc.oneof(
  fc.constantFrom(
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    '../../etc/passwd',
    '__proto__',
    '',
    ' ',
    '\u0000',
    '<img src=x onerror=alert(1)>',
    "'; DROP TABLE sessions; --",
  ),
  hugeString,
  fc.string(),
);
const nested = fc.integer({ min: 50, max: 4000 }).map((depth) => {
  let value: unknown = { id: 'deep' };
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { fleet: value };
  return value;
});
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 3 }),
    hostileString,
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    fc.array(tie('value'), { maxLength: 4 }),
  ),
})).value;

/** Payloads a browser could send: JSON only. */
const jsonPayload = fc.oneof(
  fc.constant({}),
  jsonish,
  nested,
  fc.dictionary(key, jsonish, { maxKeys: 6 }),
  fc.record({ id: hostileString, ids: fc.array(hostileString, { maxLength: 3 }) }, { requiredKeys: [] }),
  fc.record({ source: fc.record({ fleet: jsonish }), task: hostileString }),
  fc.record({ id: fc.constantFrom('openai', 'ollama', 'custom'), baseUrl: hostileString }),
);
/** Payloads the desktop renderer could send: anything structured clone carries. */
const clonePayload = fc.oneof(
  jsonPayload,
  fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withTypedArray: true,
    withSparseArray: true,
    withBoxedValues: true,
  }),
);
const anyChannel = fc.oneof(
  fc.constantFrom(...CHANNEL_NAMES),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'sessions', 'SESSIONS.LIST', 'sessions.get '),
  fc.string({ maxLength: 40 }),
);

describe('random and hostile calls through both bindings', () => {
  let clients: ContractClients;

  beforeAll(async () => {
    clients = await startContractClients();
  });
  afterAll(async () => {
    await clients?.stop();
  });

  it('answers every WebSocket call with a valid result or a typed error, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(anyChannel, jsonPayload, async (channel, payload) => {
        const before = await clients.snapshot();
        const result = await clients.overSocket(channel, payload);
        assertContractAnswer(channel, result);
        if (!result.ok) expect(await clients.snapshot()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers every IPC call with a valid result or a typed error, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CHANNEL_NAMES), clonePayload, async (channel, payload) => {
        const before = await clients.snapshot();
        const result = await clients.overIpc(channel, payload);
        assertContractAnswer(channel, result);
        if (!result.ok) expect(await clients.snapshot()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers frames that are not calls with a typed error, and keeps serving', async () => {
    const malformed = fc.oneof(
      fc.string(),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      fc.constantFrom('{"type":"call"}', '{"type":"call","id":"1","channel":"app.info"}', '[]', 'null'),
    );
    await fc.assert(
      fc.asyncProperty(malformed, async (text) => {
        const answer = await clients.sendRaw(text);
        expect(answer.type === 'result' || answer.type === 'welcome' || answer.type === 'events').toBe(true);
        if (answer.type === 'result') assertContractAnswer('(frame)', answer.result);
      }),
      { numRuns: 50 },
    );
    expect(await clients.overSocket('app.info', {})).toMatchObject({
      ok: true,
      value: { surface: 'browser' },
    });
  });

  it('leaves no key on Object.prototype after all of that', () => {
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
