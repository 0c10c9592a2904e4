import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import WebSocket from 'ws';
import { CHANNEL_NAMES, type Result, type ServerFrame } from '@shared/contract';
import { SESSION_STATUSES, type FleetInput } from '@shared/domain';
import { registerIpcHandlers, WindowClients } from '../../../src-main/electron/ipc';
import { callChecked } from '../../helpers/checked-dispatch';
import { assertContractAnswer } from '../../helpers/contract-answer';
import { startTestHost, type RunningHost } from '../../helpers/web-host';
import { FakeIpcMain, frame } from '../electron/fake-ipc-main';

/**
 * Random and hostile payloads through the dispatcher behind both bindings (a real web host's
 * WebSocket, and the desktop IPC binding on a fake ipcMain), against one real app: every answer is
 * a valid result of the channel or a typed error, and nothing a refused call carried changes the
 * store.
 */

const RENDERER = 'file:///opt/Fleetscope/resources/app.asar/out/renderer/index.html';
const RUNS = 150;

const fleet: FleetInput = {
  version: 1,
  name: 'Echo',
  agents: [{ name: 'echo', type: 'scripted', script: [{ content: 'Heard you.' }] }],
  team: { pattern: 'sequential' },
  termination: { type: 'max-messages', max: 1 },
};

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
  let running: RunningHost;
  let socket: WebSocket;
  let ipcMain: FakeIpcMain;
  let stopIpc: (() => void) | undefined;
  let nextId = 1;
  const waiting = new Map<number, (result: Result<unknown>) => void>();

  /** What a refused call must leave as it was. */
  const snapshot = async () => {
    const context = { surface: 'cli' } as const;
    const dispatcher = running.app.dispatcher;
    const sessions = await callChecked(dispatcher, 'sessions.list', { limit: 500 }, context);
    return {
      sessions,
      events: sessions.items.map((item) => running.app.store.countEvents(item.id)),
      fleets: await callChecked(dispatcher, 'fleets.list', {}, context),
      settings: await callChecked(dispatcher, 'settings.get', {}, context),
      providers: await callChecked(dispatcher, 'providers.list', {}, context),
    };
  };

  const overSocket = (channel: unknown, payload: unknown): Promise<Result<unknown>> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ type: 'call', id, channel, payload }));
    });
  };
  const overIpc = async (channel: string, payload: unknown) =>
    (await ipcMain.handlers.get(channel)!(
      { senderFrame: frame(RENDERER), sender: { id: 1 } },
      payload,
    )) as Result<unknown>;

  beforeAll(async () => {
    running = await startTestHost();
    const { app } = running;
    const started = await callChecked(
      app.dispatcher,
      'runs.start',
      { source: { fleet }, task: 'Say something' },
      { surface: 'cli' },
    );
    for (let tries = 0; app.store.getSession(started.sessionId)?.summary.status !== 'completed'; tries++) {
      if (tries > 500) throw new Error('the seed run did not complete');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await callChecked(app.dispatcher, 'fleets.save', { fleet }, { surface: 'cli' });
    await callChecked(
      app.dispatcher,
      'settings.set',
      { theme: 'dark', retentionDays: 30 },
      { surface: 'cli' },
    );

    const { port, token } = running.host;
    socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as ServerFrame;
      if (message.type !== 'result') return;
      waiting.get(message.id)?.(message.result);
      waiting.delete(message.id);
    });
    socket.send(JSON.stringify({ type: 'hello', epoch: null, lastSeq: 0 }));

    ipcMain = new FakeIpcMain();
    stopIpc = registerIpcHandlers(app, ipcMain, RENDERER, new WindowClients());
  });
  afterAll(async () => {
    stopIpc?.();
    socket?.close();
    await running.stop();
  });

  it('answers every WebSocket call with a valid result or a typed error, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(anyChannel, jsonPayload, async (channel, payload) => {
        const before = await snapshot();
        const result = await overSocket(channel, payload);
        assertContractAnswer(channel, result);
        if (!result.ok) expect(await snapshot()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers every IPC call with a valid result or a typed error, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CHANNEL_NAMES), clonePayload, async (channel, payload) => {
        const before = await snapshot();
        const result = await overIpc(channel, payload);
        assertContractAnswer(channel, result);
        if (!result.ok) expect(await snapshot()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers near-valid reads of real sessions and fleets on either binding within the contract', async () => {
    const dispatcher = running.app.dispatcher;
    const cli = { surface: 'cli' } as const;
    const [session] = (await callChecked(dispatcher, 'sessions.list', {}, cli)).items;
    const saved = (await callChecked(dispatcher, 'fleets.list', {}, cli)).find((item) => !item.example);
    if (!session || !saved) throw new Error('the seed session and fleet are missing');
    const seq = fc.integer({ min: -2, max: 40 });
    const id = fc.constantFrom(session.id, session.id.slice(0, 8), `${session.id}x`);
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const call = fc.oneof(
      fc.record({
        channel: fc.constant('sessions.list'),
        payload: fc.record(
          {
            limit: fc.integer({ min: -1, max: 600 }),
            offset: fc.integer({ min: -1, max: 3 }),
            search: fc.oneof(fc.string(), hostileString),
            tag: fc.string({ maxLength: 70 }),
            status: fc.array(fc.constantFrom(...SESSION_STATUSES, 'done'), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
      }),
      fc.record({ channel: fc.constant('sessions.get'), payload: fc.record({ id }) }),
      fc.record({
        channel: fc.constant('sessions.messages'),
        payload: fc.record({
          id,
          after: maybe(fc.oneof(fc.record({ seq }), fc.record({ t: seq }))),
          from: maybe(fc.constantFrom('start', 'end', 'middle')),
          limit: maybe(fc.integer({ min: 0, max: 1001 })),
          agent: maybe(fc.string({ maxLength: 10 })),
        }),
      }),
      fc.record({
        channel: fc.constant('sessions.events'),
        payload: fc.record({ id, afterSeq: seq, limit: maybe(fc.integer({ min: 0, max: 20_001 })) }),
      }),
      fc.record({ channel: fc.constant('sessions.seek'), payload: fc.record({ id, seq }) }),
      fc.record({ channel: fc.constant('sessions.edges'), payload: fc.record({ id, seq: maybe(seq) }) }),
      fc.record({
        channel: fc.constant('sessions.watch'),
        payload: fc.record({ ids: fc.array(id, { maxLength: 3 }) }),
      }),
      fc.record({
        channel: fc.constant('fleets.get'),
        payload: fc.record({ id: fc.constantFrom(saved.id, 'example:none', `${saved.id}x`) }),
      }),
      fc.record({
        channel: fc.constantFrom('fleets.validate'),
        payload: fc.record({
          fleet: fc.record(
            {
              version: fc.constantFrom(1, 2, '1'),
              name: fc.oneof(fc.string(), hostileString),
              agents: fc.constantFrom(fleet.agents, [], [{ name: '1bad' }], [{ name: 'a', type: 'robot' }]),
              team: fc.constantFrom(fleet.team, { pattern: 'mesh' }, { pattern: 'swarm', start: 'nobody' }),
            },
            { requiredKeys: [] },
          ),
        }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(call, fc.boolean(), async ({ channel, payload }, viaSocket) => {
        const before = await snapshot();
        const body = JSON.parse(JSON.stringify(payload)) as unknown;
        const result = viaSocket ? await overSocket(channel, body) : await overIpc(channel, body);
        assertContractAnswer(channel, result);
        if (!result.ok) expect(await snapshot()).toEqual(before);
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
        const reply = new Promise<ServerFrame>((resolve) =>
          socket.once('message', (data) => resolve(JSON.parse(String(data)) as ServerFrame)),
        );
        socket.send(text);
        const answer = await reply;
        expect(answer.type === 'result' || answer.type === 'welcome' || answer.type === 'events').toBe(true);
        if (answer.type === 'result') assertContractAnswer('(frame)', answer.result);
      }),
      { numRuns: 50 },
    );
    expect(await overSocket('app.info', {})).toMatchObject({ ok: true, value: { surface: 'browser' } });
  });

  it('leaves no key on Object.prototype after all of that', () => {
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
