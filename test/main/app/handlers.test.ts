import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Delivered, Input, Output } from '@shared/contract';
import type { FleetInput, RunEvent } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { callChecked, failChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

const debate: FleetInput = {
  version: 1,
  name: 'Tiny debate',
  agents: [
    {
      name: 'pro',
      type: 'scripted',
      description: 'argues for',
      script: [{ content: 'Tea is calmer.' }, { content: 'DONE' }],
    },
    {
      name: 'con',
      type: 'scripted',
      description: 'argues against',
      script: [{ content: 'Coffee is stronger.' }],
    },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'text-mention', text: 'DONE' },
};

describe('the app handlers over a real store and runtime', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;
  let events: Delivered[];

  // Every answer is checked against the channel's output schema (or the error shape).
  const call = <C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> =>
    callChecked(app.dispatcher, channel, input, { surface: 'cli' });
  const fail = (channel: ChannelName, input: unknown) =>
    failChecked(app.dispatcher, channel, input, { surface: 'cli' });
  async function runToEnd(fleet: FleetInput, task: string): Promise<string> {
    const { sessionId } = await call('runs.start', { source: { fleet }, task });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 10_000 })
      .toBe('completed');
    return sessionId;
  }
  const runEvents = (sessionId: string): RunEvent[] =>
    events.flatMap((event) =>
      event.channel === 'run.events' && event.payload.sessionId === sessionId ? event.payload.events : [],
    );

  beforeEach(() => {
    temp = makeTempDir();
    const resourcesDir = join(temp.dir, 'resources');
    mkdirSync(join(resourcesDir, 'fleets'), { recursive: true });
    writeFileSync(join(resourcesDir, 'fleets', 'tiny-debate.json'), JSON.stringify(debate));
    app = createApp({ dataDir: join(temp.dir, 'data'), surface: 'cli', pingIntervalMs: 0, resourcesDir });
    events = [];
    app.hub.onDidEmit((event) => events.push(event));
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('runs a fleet, streams its events in seq order, and stores the session', async () => {
    const sessionId = await runToEnd(debate, 'Tea or coffee?');
    await expect
      .poll(() => runEvents(sessionId).some((event) => event.kind === 'session.stopped'))
      .toBe(true);
    const seqs = runEvents(sessionId).map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));

    const { summary, fleet } = await call('sessions.get', { id: sessionId });
    expect(summary).toMatchObject({ fleetName: 'Tiny debate', status: 'completed', task: 'Tea or coffee?' });
    expect(summary.stopReason).toContain('text-mention');
    expect((fleet as FleetInput).agents.map((agent) => agent.name)).toEqual(['pro', 'con']);

    const page = await call('sessions.messages', { id: sessionId });
    expect(page.items.map((message) => message.content)).toEqual([
      'Tea or coffee?',
      'Tea is calmer.',
      'Coffee is stronger.',
      'DONE',
    ]);
    const stored = await call('sessions.events', { id: sessionId, afterSeq: 0 });
    expect(stored.events.map((event) => event.seq)).toEqual(seqs);
    expect(stored.lastSeq).toBe(seqs.length);

    const view = await call('sessions.seek', { id: sessionId, seq: seqs.length });
    expect(view.status).toBe('completed');
    expect(view.counters.messages).toBe(4);
  });

  it('lists, searches, renames, tags and deletes sessions, announcing changes', async () => {
    const first = await runToEnd(debate, 'Tea or coffee?');
    const second = await runToEnd(debate, 'Cats or dogs?');
    const list = await call('sessions.list', {});
    expect(list.items.map((item) => item.id)).toEqual([second, first]);
    expect((await call('sessions.list', { search: 'stronger' })).total).toBe(2);
    expect((await call('sessions.list', { search: 'Cats' })).items.map((item) => item.id)).toEqual([second]);

    await call('sessions.rename', { id: first, title: 'The tea debate' });
    await call('sessions.tag', { id: first, tags: ['demo', 'drinks'] });
    expect((await call('sessions.list', { tag: 'drinks' })).items).toMatchObject([
      { id: first, title: 'The tea debate' },
    ]);
    await expect
      .poll(() =>
        events.some((event) => event.channel === 'store.changed' && event.payload.topic === 'sessions'),
      )
      .toBe(true);

    expect(await call('sessions.delete', { id: first })).toEqual({ deleted: true });
    expect((await fail('sessions.get', { id: first })).code).toBe('not-found');
    expect((await call('sessions.list', {})).total).toBe(1);
  });

  it('exports a session to every format into the data folder, reporting progress', async () => {
    const sessionId = await runToEnd(debate, 'Tea or coffee?');
    for (const format of ['md', 'json', 'html', 'otlp'] as const) {
      const result = await call('sessions.export', { id: sessionId, format, taskId: `export-${format}` });
      expect(result.path.startsWith(join(temp.dir, 'data', 'exports'))).toBe(true);
      expect(existsSync(result.path)).toBe(true);
      expect(result.bytes).toBeGreaterThan(100);
      const finished = events.find(
        (event) =>
          event.channel === 'task.progress' &&
          event.payload.taskId === `export-${format}` &&
          event.payload.finished,
      );
      expect(finished).toBeDefined();
    }
    const markdown = readFileSync(
      (await call('sessions.export', { id: sessionId, format: 'md' })).path,
      'utf8',
    );
    expect(markdown).toContain('Coffee is stronger.');
  });

  it('imports a transcript from the app and refuses a bad one, changing nothing', async () => {
    const openai = JSON.stringify([
      { role: 'user', content: 'What is 2+2?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":2}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '4' },
      { role: 'assistant', content: 'It is 4.' },
    ]);
    const imported = await call('sessions.importData', { fileName: 'chat.json', content: openai });
    expect(imported.format).toContain('openai');
    expect(imported.messageCount).toBeGreaterThanOrEqual(3);
    const { summary } = await call('sessions.get', { id: imported.sessionId });
    expect(summary.readOnly).toBe(true);

    const bad = await fail('sessions.importData', {
      fileName: 'broken.json',
      content: '[{"role": "user", "content": ',
    });
    expect(bad.code).toBe('invalid-input');
    expect(bad.message.length).toBeGreaterThan(10);
    expect((await call('sessions.list', {})).total).toBe(1);
    expect((await fail('runs.continue', { sessionId: imported.sessionId, task: 'more?' })).code).toBe(
      'read-only',
    );
  });

  it('pauses and stops a run, and refuses control of unknown sessions', async () => {
    const slow: FleetInput = {
      ...debate,
      agents: debate.agents.map((agent) => ({
        ...agent,
        loop: true,
        script: [{ content: 'x'.repeat(400), chunkSize: 4, delayMs: 5 }],
      })),
      termination: { type: 'max-messages', max: 1000 },
    };
    const { sessionId } = await call('runs.start', { source: { fleet: slow }, task: 'Go on forever' });
    await expect.poll(() => runEvents(sessionId).some((event) => event.kind === 'message.delta')).toBe(true);
    expect(await call('runs.active', {})).toEqual([{ sessionId, status: 'running' }]);
    await call('runs.control', { sessionId, action: 'stop' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('stopped');
    expect(await call('runs.active', {})).toEqual([]);
    expect((await fail('runs.control', { sessionId: 'nope', action: 'pause' })).code).toBe('not-found');
  });

  it('asks a human and continues when the answer arrives through the contract', async () => {
    const withHuman: FleetInput = {
      version: 1,
      name: 'Ask me',
      agents: [
        { name: 'bot', type: 'scripted', script: [{ content: 'What colour?' }, { content: 'Noted. DONE' }] },
        { name: 'me', type: 'human', description: 'the user' },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'text-mention', text: 'DONE' },
    };
    const { sessionId } = await call('runs.start', { source: { fleet: withHuman }, task: 'Pick a colour' });
    await expect
      .poll(() => runEvents(sessionId).find((event) => event.kind === 'human.requested'))
      .toBeDefined();
    const request = runEvents(sessionId).find((event) => event.kind === 'human.requested');
    if (request?.kind !== 'human.requested') throw new Error('no request');
    expect((await fail('runs.answer', { sessionId, requestId: 'wrong', text: 'x' })).code).toBe('conflict');
    await call('runs.answer', { sessionId, requestId: request.payload.requestId, text: 'Blue' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    const contents = (await call('sessions.messages', { id: sessionId })).items.map(
      (message) => message.content,
    );
    expect(contents).toContain('Blue');
  });

  it('continues a finished run with a follow-up in the same session', async () => {
    const sessionId = await runToEnd(
      { ...debate, agents: debate.agents.map((agent) => ({ ...agent, loop: true })) },
      'Tea?',
    );
    const before = (await call('sessions.get', { id: sessionId })).summary.messageCount;
    await call('runs.continue', { sessionId, task: 'And now milk?', context: { mood: 'calm' } });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.messageCount, {
        timeout: 10_000,
      })
      .toBeGreaterThan(before);
    const contents = (await call('sessions.messages', { id: sessionId, limit: 1000 })).items.map(
      (m) => m.content,
    );
    expect(contents.find((content) => content.startsWith('And now milk?'))).toContain('mood: calm');
  });

  it('refuses a second follow-up sent in the same tick, and a follow-up to a deleted session', async () => {
    const looping = { ...debate, agents: debate.agents.map((agent) => ({ ...agent, loop: true })) };
    const sessionId = await runToEnd(looping, 'Tea?');
    const [first, second] = await Promise.all([
      app.dispatcher.dispatch('runs.continue', { sessionId, task: 'One' }, { surface: 'cli' }),
      app.dispatcher.dispatch('runs.continue', { sessionId, task: 'Two' }, { surface: 'cli' }),
    ]);
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, error: { code: 'conflict' } });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    const stored = await call('sessions.events', { id: sessionId, afterSeq: 0 });
    expect(stored.events.filter((event) => event.kind === 'session.continued')).toHaveLength(1);

    await call('sessions.delete', { id: sessionId });
    expect((await fail('runs.continue', { sessionId, task: 'Three' })).code).toBe('not-found');
    expect((await call('sessions.list', {})).total).toBe(0);
  });

  it('lists examples and saved fleets; examples are read-only; invalid fleets are refused by field', async () => {
    const list = await call('fleets.list', {});
    expect(list).toMatchObject([
      { id: 'example:tiny-debate', example: true, scripted: true, agentCount: 2, pattern: 'round-robin' },
    ]);
    const saved = await call('fleets.save', { fleet: { ...debate, name: 'Mine' } });
    expect(saved).toMatchObject({ name: 'Mine', example: false });
    expect((await call('fleets.list', {})).map((fleet) => fleet.name)).toEqual(['Mine', 'Tiny debate']);
    expect((await call('fleets.get', { id: saved.id })).fleet).toMatchObject({ name: 'Mine' });

    expect((await fail('fleets.save', { id: 'example:tiny-debate', fleet: debate })).code).toBe('read-only');
    expect((await fail('fleets.delete', { id: 'example:tiny-debate' })).code).toBe('read-only');
    const duplicate = { ...debate, agents: [debate.agents[0], debate.agents[0]] };
    const refused = await fail('fleets.save', { fleet: duplicate });
    expect(refused.code).toBe('invalid-input');
    expect(refused.message).toMatch(/agents\[1\]\.name/);
    const validation = await call('fleets.validate', { fleet: duplicate });
    expect(validation.errors[0]?.path).toBe('agents[1].name');
    expect((await fail('runs.start', { source: { fleet: duplicate }, task: 'x' })).code).toBe(
      'invalid-input',
    );

    const { sessionId } = await call('runs.start', {
      source: { example: 'tiny-debate' },
      task: 'From the example',
    });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    expect(await call('fleets.delete', { id: saved.id })).toEqual({ deleted: true });
  });

  it('stops a run at the message cap set in Settings, saying why', async () => {
    await call('settings.set', { maxMessagesPerSession: 2 });
    const endless = {
      ...debate,
      agents: debate.agents.map((agent) => ({ ...agent, loop: true })),
      termination: undefined,
    };
    const { sessionId } = await call('runs.start', { source: { fleet: endless }, task: 'Talk' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    const { summary } = await call('sessions.get', { id: sessionId });
    expect(summary.stopReason).toContain('max-messages');
    expect(summary.messageCount).toBeLessThanOrEqual(3);
  });
});
