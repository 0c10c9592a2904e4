import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelName } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type CallContext, type FleetscopeApp } from '../../../src-main/app';
import { EventClient } from '../../../src-main/app/delivery/event-client';
import { callChecked, failChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

const fleet: FleetInput = {
  version: 1,
  name: 'Two voices',
  agents: [
    { name: 'pro', type: 'scripted', script: [{ content: 'Yes.' }, { content: 'DONE' }] },
    { name: 'con', type: 'scripted', script: [{ content: 'No.' }] },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'text-mention', text: 'DONE' },
};

const NEVER = 'never-stored-0000';

/** Resolves once `condition` holds (hooks cannot use expect.poll). */
async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every call naming a session, fleet or example that does not exist, and the word its error says. */
const unknownIds: Array<[ChannelName, Record<string, unknown>, RegExp]> = [
  ['sessions.get', { id: NEVER }, /session/i],
  ['sessions.messages', { id: NEVER }, /session/i],
  ['sessions.events', { id: NEVER, afterSeq: 0 }, /session/i],
  ['sessions.seek', { id: NEVER, seq: 0 }, /session/i],
  ['sessions.edges', { id: NEVER }, /session/i],
  ['sessions.turns', { id: NEVER }, /session/i],
  ['sessions.unmapped', { id: NEVER }, /session/i],
  ['sessions.modelCalls', { id: NEVER }, /session/i],
  ['sessions.context', { id: NEVER, messageId: 'm1' }, /session/i],
  ['sessions.rename', { id: NEVER, title: 'New title' }, /session/i],
  ['sessions.tag', { id: NEVER, tags: ['a'] }, /session/i],
  ['sessions.delete', { id: NEVER }, /session/i],
  ['sessions.export', { id: NEVER, format: 'md' }, /session/i],
  ['sessions.watch', { ids: [NEVER] }, /session/i],
  ['runs.control', { sessionId: NEVER, action: 'pause' }, /session/i],
  ['runs.answer', { sessionId: NEVER, requestId: 'r1', text: 'hi' }, /session/i],
  ['runs.continue', { sessionId: NEVER, task: 'More' }, /session/i],
  ['runs.resumeCheck', { sessionId: NEVER }, /session/i],
  ['branches.fork', { sessionId: NEVER, atMessage: 1 }, /session/i],
  ['branches.family', { id: NEVER }, /session/i],
  ['branches.compare', { a: NEVER, b: NEVER }, /session/i],
  ['branches.exportCompare', { a: NEVER, b: NEVER, format: 'md' }, /session/i],
  ['runs.start', { source: { fleetId: NEVER }, task: 'Go' }, /fleet/i],
  ['runs.start', { source: { example: NEVER }, task: 'Go' }, /fleet/i],
  ['fleets.get', { id: NEVER }, /fleet/i],
  ['fleets.save', { id: NEVER, fleet }, /fleet/i],
  ['fleets.delete', { id: NEVER }, /fleet/i],
];

/** Nested `{ a: { a: ... } }`, `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('calls that name what does not exist, or break a limit', () => {
  const temp = makeTempDir();
  let app: FleetscopeApp;
  let sessionId: string;
  let context: CallContext;

  /** What a refused call must leave as it was. */
  const snapshot = async () => ({
    sessions: await callChecked(app.dispatcher, 'sessions.list', {}, context),
    fleets: await callChecked(app.dispatcher, 'fleets.list', {}, context),
    providers: await callChecked(app.dispatcher, 'providers.list', {}, context),
    settings: await callChecked(app.dispatcher, 'settings.get', {}, context),
    events: await callChecked(app.dispatcher, 'sessions.events', { id: sessionId, afterSeq: 0 }, context),
    watching: context.client?.watching,
  });

  beforeAll(async () => {
    const resourcesDir = join(temp.dir, 'resources');
    mkdirSync(join(resourcesDir, 'fleets'), { recursive: true });
    writeFileSync(join(resourcesDir, 'fleets', 'two-voices.json'), JSON.stringify(fleet));
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
      resourcesDir,
      watchStore: false,
    });
    context = { surface: 'browser', client: new EventClient() };
    ({ sessionId } = await callChecked(
      app.dispatcher,
      'runs.start',
      { source: { fleet }, task: 'Yes or no?' },
      context,
    ));
    await until(
      async () =>
        (await callChecked(app.dispatcher, 'sessions.get', { id: sessionId }, context)).summary.status ===
        'completed',
    );
    await callChecked(app.dispatcher, 'fleets.save', { fleet }, context);
    await callChecked(app.dispatcher, 'sessions.watch', { ids: [sessionId] }, context);
  });
  afterAll(async () => {
    await app.close();
    temp.remove();
  });

  it.each(unknownIds)(
    '%s answers not-found for an id never stored (%j), changing nothing',
    async (channel, input, word) => {
      const before = await snapshot();
      const error = await failChecked(app.dispatcher, channel, input, context);
      expect(error.code).toBe('not-found');
      expect(error.message).toMatch(word);
      expect(error.message).toContain(NEVER);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('answers sessions.events for a stored session with its log, and for an unknown one with not-found', async () => {
    const { events, lastSeq } = await callChecked(
      app.dispatcher,
      'sessions.events',
      { id: sessionId, afterSeq: 0 },
      context,
    );
    expect(events.length).toBe(lastSeq);
    expect(lastSeq).toBeGreaterThan(3);
    const error = await failChecked(
      app.dispatcher,
      'sessions.events',
      { id: `${sessionId}x`, afterSeq: 0 },
      context,
    );
    expect(error.code).toBe('not-found');
  });

  it('refuses a provider base URL that is not http or https, keeping the saved one', async () => {
    await callChecked(
      app.dispatcher,
      'providers.save',
      { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: 'llama3', apiKeyEnv: null },
      context,
    );
    const before = await snapshot();
    for (const baseUrl of [
      'javascript:alert(document.cookie)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'ftp://example.com/v1',
      ' http://example.com',
    ]) {
      const error = await failChecked(
        app.dispatcher,
        'providers.save',
        { id: 'ollama', baseUrl, defaultModel: 'llama3', apiKeyEnv: null },
        context,
      );
      expect(error.code, baseUrl).toBe('invalid-input');
      expect(error.message).toContain('baseUrl');
      const tested = await failChecked(app.dispatcher, 'providers.test', { id: 'ollama', baseUrl }, context);
      expect(tested.code, baseUrl).toBe('invalid-input');
    }
    expect(await snapshot()).toEqual(before);
    const saved = JSON.parse(readFileSync(join(temp.dir, 'data', 'providers.json'), 'utf8')) as Record<
      string,
      { baseUrl: string }
    >;
    expect(saved.ollama?.baseUrl).toBe('http://127.0.0.1:11434/v1');
  });

  it('ignores a saved provider entry whose base URL an older version let through', async () => {
    await callChecked(
      app.dispatcher,
      'providers.save',
      { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: 'llama3', apiKeyEnv: null },
      context,
    );
    const file = join(temp.dir, 'data', 'providers.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      file,
      JSON.stringify({
        ...saved,
        lmstudio: { baseUrl: 'javascript:alert(1)', defaultModel: 'x', apiKeyEnv: null },
      }),
    );
    const { providers } = await callChecked(app.dispatcher, 'providers.list', {}, context);
    const lmstudio = providers.find((provider) => provider.id === 'lmstudio');
    expect(lmstudio).toMatchObject({ saved: false, baseUrl: 'http://localhost:1234/v1' });
    expect(providers.find((provider) => provider.id === 'ollama')?.baseUrl).toBe('http://127.0.0.1:11434/v1');
  });

  it('refuses a fleet whose agent would call a non-http address', async () => {
    const before = await snapshot();
    const hostile = {
      ...fleet,
      agents: [
        { name: 'pro', type: 'llm', provider: { id: 'custom', baseUrl: 'javascript:alert(1)', model: 'm' } },
        fleet.agents[1],
      ],
    };
    const error = await failChecked(app.dispatcher, 'fleets.save', { fleet: hostile }, context);
    expect(error.code).toBe('invalid-input');
    expect(error.message).toMatch(/baseUrl.*http/);
    expect(
      (await callChecked(app.dispatcher, 'fleets.validate', { fleet: hostile }, context)).errors,
    ).toContainEqual(expect.objectContaining({ path: expect.stringContaining('baseUrl') }));
    expect(
      (await failChecked(app.dispatcher, 'runs.start', { source: { fleet: hostile }, task: 'x' }, context))
        .code,
    ).toBe('invalid-input');
    expect(await snapshot()).toEqual(before);
  });

  const tooLong: Array<[string, ChannelName, () => Record<string, unknown>]> = [
    ['a 301-character session title', 'sessions.rename', () => ({ id: sessionId, title: 't'.repeat(301) })],
    ['a 61-character tag', 'sessions.tag', () => ({ id: sessionId, tags: ['t'.repeat(61)] })],
    [
      '51 tags',
      'sessions.tag',
      () => ({ id: sessionId, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }),
    ],
    ['a 501-character search', 'sessions.list', () => ({ search: 's'.repeat(501) })],
    ['a 201-character id', 'sessions.get', () => ({ id: 'i'.repeat(201) })],
    [
      'a 100,001-character task',
      'runs.start',
      () => ({ source: { fleetId: 'x' }, task: 't'.repeat(100_001) }),
    ],
    [
      'a 301-character key variable',
      'providers.save',
      () => ({
        id: 'ollama',
        baseUrl: 'http://127.0.0.1:1/v1',
        defaultModel: 'm',
        apiKeyEnv: 'K'.repeat(301),
      }),
    ],
    [
      'a fleet with a 200,001-character prompt',
      'fleets.save',
      () => ({ fleet: { ...fleet, description: 'd'.repeat(200_001) } }),
    ],
    [
      'a fleet key of 201 characters',
      'fleets.validate',
      () => ({ fleet: { ...fleet, ['k'.repeat(201)]: 1 } }),
    ],
    ['51 watched sessions', 'sessions.watch', () => ({ ids: Array.from({ length: 51 }, () => sessionId) })],
  ];

  it.each(tooLong)('refuses %s with invalid-input, changing nothing', async (_label, channel, input) => {
    const before = await snapshot();
    const error = await failChecked(app.dispatcher, channel, input(), context);
    expect(error.code).toBe('invalid-input');
    expect(await snapshot()).toEqual(before);
  });

  it.each([65, 3000, 50_000])('refuses a payload nested %i levels deep with a typed error', async (depth) => {
    const before = await snapshot();
    const error = await failChecked(
      app.dispatcher,
      'fleets.validate',
      { fleet: { ...fleet, deep: nested(depth) } },
      context,
    );
    expect(error.code).toBe('too-large');
    expect(await snapshot()).toEqual(before);
  });

  it('takes a fleet nested as deep as real team nesting goes', async () => {
    const validation = await callChecked(
      app.dispatcher,
      'fleets.validate',
      { fleet: { ...fleet, deep: nested(40) } },
      context,
    );
    expect(validation.errors).toEqual([]);
  });

  it('sets the watched sessions per client, and refuses where no client receives events', async () => {
    expect(
      await callChecked(app.dispatcher, 'sessions.watch', { ids: [sessionId, sessionId] }, context),
    ).toEqual({
      ids: [sessionId],
    });
    expect(context.client?.watching).toEqual([sessionId]);
    expect(await callChecked(app.dispatcher, 'sessions.watch', { ids: [] }, context)).toEqual({ ids: [] });
    expect(context.client?.watching).toEqual([]);
    const error = await failChecked(
      app.dispatcher,
      'sessions.watch',
      { ids: [sessionId] },
      { surface: 'cli' },
    );
    expect(error.code).toBe('unavailable');
    await callChecked(app.dispatcher, 'sessions.watch', { ids: [sessionId] }, context);
  });

  it('still exports an existing session after the refusals', async () => {
    const exported = await callChecked(
      app.dispatcher,
      'sessions.export',
      { id: sessionId, format: 'md' },
      context,
    );
    expect(existsSync(exported.path)).toBe(true);
  });
});
