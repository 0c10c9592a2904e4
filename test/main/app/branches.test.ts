import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { callChecked, failChecked } from '../../helpers/checked-dispatch';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { agentOf } from '../../helpers/stub-agents';
import { makeTempDir } from '../../helpers/temp-dir';

const debate: FleetInput = {
  version: 1,
  name: 'Tiny debate',
  agents: [
    {
      name: 'pro',
      type: 'scripted',
      loop: true,
      script: [{ content: 'Tea is calmer.' }, { content: 'Tea wins.' }],
    },
    { name: 'con', type: 'scripted', loop: true, script: [{ content: 'Coffee is stronger.' }] },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 6 },
};

describe('branches over the contract: fork, family, compare, export, resume', () => {
  let stub: OpenAiStub;
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  let app: FleetscopeApp;

  const call = <C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> =>
    callChecked(app.dispatcher, channel, input, { surface: 'cli' });
  const fail = (channel: ChannelName, input: unknown) =>
    failChecked(app.dispatcher, channel, input, { surface: 'cli' });
  const open = () =>
    createApp({ dataDir, surface: 'cli', pingIntervalMs: 0, seedSamples: false, watchStore: false });
  const settled = (id: string) =>
    expect
      .poll(async () => (await call('sessions.get', { id })).summary.status, { timeout: 10_000 })
      .not.toMatch(/running|paused|waiting/);
  const texts = async (id: string) =>
    (await call('sessions.messages', { id, limit: 1000 })).items.map(
      (message) => `${message.from}:${message.content}`,
    );
  async function runToEnd(fleet: FleetInput, task: string): Promise<string> {
    const { sessionId } = await call('runs.start', { source: { fleet }, task });
    await settled(sessionId);
    return sessionId;
  }

  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    temp = makeTempDir();
    dataDir = join(temp.dir, 'data');
    app = open();
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('forks at a message with an edit and runs it; the family, the list and the comparison show both', async () => {
    const parent = await runToEnd(debate, 'Tea or coffee?');
    expect(await texts(parent)).toEqual([
      'user:Tea or coffee?',
      'pro:Tea is calmer.',
      'con:Coffee is stronger.',
      'pro:Tea wins.',
      'con:Coffee is stronger.',
      'pro:Tea is calmer.',
    ]);
    const fork = await call('branches.fork', { sessionId: parent, atMessage: 3, text: 'Coffee is bitter.' });
    expect(fork).toMatchObject({
      forkOf: { sessionId: parent, atMessage: 3 },
      label: 'message 3 edited',
      running: true,
    });
    await settled(fork.sessionId);
    // The fork goes on from the edit as the original run would have: pro's next line, and the
    // condition counts the messages it shares with its parent (6 in all).
    expect(await texts(fork.sessionId)).toEqual([
      'user:Tea or coffee?',
      'pro:Tea is calmer.',
      'con:Coffee is bitter.',
      'pro:Tea wins.',
      'con:Coffee is stronger.',
      'pro:Tea is calmer.',
    ]);

    const family = await call('branches.family', { id: fork.sessionId.slice(0, 14) });
    expect(family).toMatchObject({ rootId: parent, sessionId: fork.sessionId, truncated: false });
    expect(family.nodes.map((node) => [node.sessionId, node.parentId, node.depth, node.label])).toEqual([
      [parent, null, 0, ''],
      [fork.sessionId, parent, 1, 'message 3 edited'],
    ]);
    const list = await call('sessions.list', {});
    expect(list.items.find((item) => item.id === fork.sessionId)).toMatchObject({
      forkOf: { sessionId: parent, atMessage: 3 },
      family: { rootId: parent, size: 2 },
    });

    const compared = await call('branches.compare', { a: parent, b: fork.sessionId, offset: 0, limit: 4 });
    expect(compared).toMatchObject({
      commonPrefix: 2,
      divergeAt: 3,
      ancestorId: parent,
      totalPairs: 6,
      hasMore: true,
    });
    expect(compared.pairs.map((pair) => [pair.position, pair.same])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ]);
    expect(compared.pairs[2]?.segments).toEqual([
      { text: 'Coffee is ', side: 'both' },
      { text: 'stronger', side: 'a' },
      { text: 'bitter', side: 'b' },
      { text: '.', side: 'both' },
    ]);
    expect(compared.a).toMatchObject({ messages: 6, stopReason: 'max-messages', forkOf: null });
    expect(compared.b).toMatchObject({ messages: 6, stopReason: 'max-messages', forkOf: { atMessage: 3 } });
    expect(compared.agents.find((agent) => agent.name === 'con')).toMatchObject({
      a: { messages: 2 },
      b: { messages: 2 },
      differs: false,
    });
    const page2 = await call('branches.compare', { a: parent, b: fork.sessionId, offset: 4, limit: 4 });
    expect(page2.pairs.map((pair) => pair.position)).toEqual([5, 6]);
    expect(page2.hasMore).toBe(false);
    const self = await call('branches.compare', { a: parent, b: parent });
    expect(self).toMatchObject({ commonPrefix: 6, divergeAt: null });

    for (const format of ['md', 'html'] as const) {
      const exported = await call('branches.exportCompare', { a: parent, b: fork.sessionId, format });
      expect(exported.fileName.endsWith(`.${format}`)).toBe(true);
      expect(exported.path).toBe(join(dataDir, 'exports', exported.fileName));
      const text = readFileSync(exported.path, 'utf8');
      expect(Buffer.byteLength(text)).toBe(exported.bytes);
      expect(text).toContain(format === 'md' ? '~~stronger~~' : '<del>stronger</del>');
    }
  });

  it('changes agents and stop conditions in a fork, and refuses what cannot be, changing nothing', async () => {
    const llmFleet: FleetInput = {
      version: 1,
      name: 'Pair',
      agents: [
        {
          name: 'ann',
          type: 'llm',
          provider: { id: 'custom', baseUrl: stub.baseUrl, model: 'm1', temperature: 0.2 },
        },
        { name: 'bob', type: 'llm', provider: { id: 'custom', baseUrl: stub.baseUrl, model: 'm1' } },
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 3 },
    };
    stub.respondWith((request) => ({ type: 'text', content: `${agentOf(request)} answers` }));
    const parent = await runToEnd(llmFleet, 'Name a fruit');
    const fork = await call('branches.fork', {
      sessionId: parent,
      atMessage: 2,
      agents: [
        { agent: 'ann', systemPrompt: 'You are ann, a grumpy grocer.', temperature: null },
        { agent: 'bob', model: 'm2' },
      ],
      termination: { type: 'text-mention', text: 'STOP' },
      run: false,
    });
    expect(fork.changes.map((change) => change.field)).toEqual([
      'temperature',
      'systemPrompt',
      'model',
      'termination',
    ]);
    expect(fork.label).toContain('bob: model m1 -> m2');
    const stored = await call('sessions.get', { id: fork.sessionId });
    const agents = stored.fleet?.agents ?? [];
    expect(agents[0]).toMatchObject({ systemPrompt: 'You are ann, a grumpy grocer.' });
    expect(agents[0]?.provider?.temperature).toBeUndefined();
    expect(agents[1]?.provider?.model).toBe('m2');
    expect(stored.fleet?.termination).toMatchObject({ type: 'text-mention', text: 'STOP' });
    expect(stored.summary).toMatchObject({ status: 'stopped', stopReason: 'forked', messageCount: 2 });

    const count = (await call('sessions.list', {})).total;
    expect((await fail('branches.fork', { sessionId: parent, atMessage: 99 })).message).toMatch(
      /no message 99/,
    );
    expect((await fail('branches.fork', { sessionId: 'nope', atMessage: 1 })).code).toBe('not-found');
    expect(
      (
        await fail('branches.fork', {
          sessionId: parent,
          atMessage: 1,
          agents: [{ agent: 'zed', model: 'x' }],
        })
      ).message,
    ).toMatch(/no agent "zed" \(its agents: ann, bob\)/);
    expect((await fail('branches.fork', { sessionId: parent, atMessage: 0 })).code).toBe('invalid-input');
    expect(
      (
        await fail('branches.fork', {
          sessionId: parent,
          atMessage: 1,
          agents: [{ agent: 'ann', temperature: 9 }],
        })
      ).code,
    ).toBe('invalid-input');
    expect(
      (
        await fail('branches.fork', {
          sessionId: parent,
          atMessage: 1,
          termination: { type: 'max-messages', max: 0 },
        })
      ).code,
    ).toBe('invalid-input');
    expect((await fail('branches.compare', { a: parent, b: 'nope' })).code).toBe('not-found');
    expect((await fail('branches.family', { id: 'nope' })).code).toBe('not-found');
    expect((await call('sessions.list', {})).total).toBe(count);

    // Deleting the parent is refused while the fork reads through it.
    const refused = await fail('sessions.delete', { id: parent });
    expect(refused.message).toMatch(/fork.*delete it first/);
    expect(await texts(fork.sessionId)).toHaveLength(2);

    // Running the fork later: the changed system prompt and model reach the model server.
    stub.respondWith(null);
    stub.requests.length = 0;
    stub.respondWith((request) => ({ type: 'text', content: `${agentOf(request)} says STOP` }));
    await call('runs.continue', { sessionId: fork.sessionId });
    await settled(fork.sessionId);
    const sent = stub.chatRequests();
    expect(sent[0]?.body?.model).toBe('m2');
    expect(sent[0]?.body?.messages?.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    stub.respondWith(null);
  });

  it('continues a session from an earlier launch, and an imported one once its agents have providers', async () => {
    const parent = await runToEnd(debate, 'Tea or coffee?');
    await app.close();
    app = open();
    expect(await call('runs.resumeCheck', { sessionId: parent })).toMatchObject({
      resumable: true,
      live: false,
      unmappedAgents: [],
      imported: false,
    });
    await call('runs.continue', { sessionId: parent, task: 'Again, shorter.' });
    await settled(parent);
    const after = await texts(parent);
    expect(after.slice(0, 6)).toHaveLength(6);
    expect(after[6]).toBe('user:Again, shorter.');
    expect(after.length).toBe(12);
    const events = (await call('sessions.events', { id: parent, afterSeq: 0 })).events;
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.kind === 'session.continued')).toHaveLength(1);

    // A transcript from elsewhere, with a tool this app does not have.
    const conversation = JSON.stringify([
      { role: 'user', content: 'What is 2+2?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'add_numbers', arguments: '{"a":2,"b":2}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '4' },
      { role: 'assistant', content: 'It is 4.' },
    ]);
    const imported = await call('sessions.importData', { fileName: 'chat.json', content: conversation });
    const check = await call('runs.resumeCheck', { sessionId: imported.sessionId });
    expect(check).toMatchObject({ resumable: false, imported: true, unmappedAgents: ['assistant'] });
    expect((await fail('runs.continue', { sessionId: imported.sessionId, task: 'And 3+3?' })).code).toBe(
      'read-only',
    );
    await call('providers.save', {
      id: 'custom',
      baseUrl: stub.baseUrl,
      defaultModel: 'stub-model',
      apiKeyEnv: null,
    });
    stub.respondWith(() => ({ type: 'text', content: 'It is 6.' }));
    const rowsBefore = await call('sessions.get', { id: imported.sessionId });
    const textsBefore = await texts(imported.sessionId);
    // The import is read-only: it stays as it was, and the conversation goes on in a fork.
    const { sessionId: forkId } = await call('runs.continue', {
      sessionId: imported.sessionId,
      task: 'And 3+3?',
      agents: [{ agent: 'assistant', provider: 'custom' }],
    });
    expect(forkId).not.toBe(imported.sessionId);
    await settled(forkId);
    stub.respondWith(null);
    expect((await call('sessions.get', { id: imported.sessionId })).summary).toEqual({
      ...rowsBefore.summary,
      family: { ...rowsBefore.summary.family, forks: 1, size: 2 },
    });
    expect(await texts(imported.sessionId)).toEqual(textsBefore);
    const continued = await call('sessions.get', { id: forkId });
    expect(continued.summary.readOnly).toBe(false);
    expect(continued.summary.parentSessionId).toBe(imported.sessionId);
    expect(continued.fleet?.agents[0]?.provider).toMatchObject({ id: 'custom', model: 'stub-model' });
    expect((await texts(forkId)).slice(-2)).toEqual(['user:And 3+3?', 'assistant:It is 6.']);
    // Its agent keeps only the tools this app has.
    expect(continued.fleet?.agents[0]?.tools).toEqual([]);
  });

  it('forks an imported session: created without providers, run once its agent has one', async () => {
    const conversation = JSON.stringify([
      { role: 'user', content: 'Name a colour.' },
      { role: 'assistant', content: 'Blue.' },
      { role: 'user', content: 'Another?' },
      { role: 'assistant', content: 'Green.' },
    ]);
    const imported = await call('sessions.importData', { fileName: 'colours.json', content: conversation });
    expect((await fail('branches.fork', { sessionId: imported.sessionId, atMessage: 3 })).message).toMatch(
      /cannot run until its agents have providers: give assistant a provider/,
    );
    const idle = await call('branches.fork', {
      sessionId: imported.sessionId,
      atMessage: 3,
      text: 'A third?',
      run: false,
    });
    expect(await texts(idle.sessionId)).toEqual(['user:Name a colour.', 'assistant:Blue.', 'user:A third?']);
    await call('providers.save', {
      id: 'custom',
      baseUrl: stub.baseUrl,
      defaultModel: 'stub-model',
      apiKeyEnv: null,
    });
    stub.respondWith(() => ({ type: 'text', content: 'Red.' }));
    const ran = await call('branches.fork', {
      sessionId: imported.sessionId,
      atMessage: 3,
      text: 'A warm one?',
      agents: [{ agent: 'assistant', provider: 'custom' }],
    });
    await settled(ran.sessionId);
    stub.respondWith(null);
    expect(await texts(ran.sessionId)).toEqual([
      'user:Name a colour.',
      'assistant:Blue.',
      'user:A warm one?',
      'assistant:Red.',
    ]);
    expect(ran.label).toBe('message 3 edited; assistant: provider none -> custom');
  });

  it('a session continued by another app meanwhile goes on after its events, never over them', async () => {
    const parent = await runToEnd(debate, 'Tea or coffee?');
    const other = open();
    try {
      // The other app continues it while this one still holds the finished run in memory.
      const elsewhere = other.runs.resume({ sessionId: parent, task: 'From elsewhere.' });
      // While that continuation runs, no one else may start one.
      expect((await fail('runs.continue', { sessionId: parent, task: 'Too soon.' })).code).toBe('conflict');
      await elsewhere.done;
      await call('runs.continue', { sessionId: parent, task: 'From here.' });
      await settled(parent);
    } finally {
      await other.close();
    }
    const events = (await call('sessions.events', { id: parent, afterSeq: 0 })).events;
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const tasks = events.flatMap((event) => (event.kind === 'session.continued' ? [event.payload.task] : []));
    expect(tasks).toEqual(['From elsewhere.', 'From here.']);
    const all = await texts(parent);
    expect(all.indexOf('user:From elsewhere.')).toBeLessThan(all.indexOf('user:From here.'));
  });

  it('refuses to continue a session that is running, or one that was never stored', async () => {
    const slow: FleetInput = {
      ...debate,
      agents: debate.agents.map((agent) => ({
        ...agent,
        script: [{ content: 'x'.repeat(300), chunkSize: 3, delayMs: 5 }],
      })),
      termination: { type: 'max-messages', max: 100 },
    };
    const { sessionId } = await call('runs.start', { source: { fleet: slow }, task: 'Go' });
    expect((await fail('runs.continue', { sessionId })).code).toBe('conflict');
    expect((await fail('branches.fork', { sessionId, atMessage: 1 })).message).toMatch(/still running/);
    expect(await call('runs.resumeCheck', { sessionId })).toMatchObject({ resumable: false, live: true });
    await call('runs.control', { sessionId, action: 'stop' });
    await settled(sessionId);
    expect((await fail('runs.continue', { sessionId: 'nope' })).code).toBe('not-found');
    expect((await fail('runs.resumeCheck', { sessionId: 'nope' })).code).toBe('not-found');
    expect(existsSync(join(dataDir, 'exports'))).toBe(false);
  });
});
