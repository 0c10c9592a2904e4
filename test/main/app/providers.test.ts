import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Delivered, Input, Output, Result } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp, type KeyVault } from '../../../src-main/app';
import { ProviderService } from '../../../src-main/app/services/providers';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { dispatchChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

const SECRET = 'sk-test-SECRET-4f1d9c2b7a0e';

/** An in-memory stand-in for the desktop's safeStorage vault. */
function memoryVault(): KeyVault & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    available: true,
    weak: false,
    message: 'Keys are encrypted (test vault).',
    has: (id) => entries.has(id),
    get: (id) => entries.get(id),
    set: (id, key) => void entries.set(id, key),
    delete: (id) => void entries.delete(id),
  };
}

describe('providers over the contract', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;
  let stub: OpenAiStub;
  let events: Delivered[];
  const replies: unknown[] = [];

  async function call<C extends ChannelName>(
    channel: C,
    input: Input<C>,
    surface: 'desktop' | 'browser' = 'desktop',
  ): Promise<Output<C>> {
    const result = (await dispatchChecked(app.dispatcher, channel, input, { surface })) as Result<Output<C>>;
    replies.push(result);
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  }

  beforeEach(async () => {
    temp = makeTempDir();
    stub = await startOpenAiStub();
    events = [];
    replies.length = 0;
  });
  afterEach(async () => {
    await app?.close();
    await stub.close();
    temp.remove();
  });

  function start(options: { vault?: KeyVault; env?: NodeJS.ProcessEnv } = {}) {
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: options.vault ? 'desktop' : 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
      resourcesDir: join(temp.dir, 'resources'),
      ...(options.vault ? { keyVault: options.vault } : {}),
      env: options.env ?? {},
    });
    app.hub.onDidEmit((event) => events.push(event));
  }

  it('lists every preset with the built-in scripted provider, and tools from the registry', async () => {
    start();
    const { providers, keyStorage } = await call('providers.list', {});
    expect(providers.map((provider) => provider.id)).toEqual([
      'scripted',
      'openai',
      'azure',
      'ollama',
      'lmstudio',
      'vllm',
      'llamacpp',
      'openrouter',
      'custom',
    ]);
    expect(providers.find((provider) => provider.id === 'ollama')?.baseUrl).toBe('http://localhost:11434/v1');
    expect(providers.find((provider) => provider.id === 'scripted')).toMatchObject({
      builtIn: true,
      keyOptional: true,
    });
    expect(keyStorage).toMatchObject({ kind: 'environment', writable: false });
    const tools = await call('tools.list', {});
    expect(tools.map((tool) => tool.name).sort()).toEqual(['calculator', 'current_time', 'read_file']);
  });

  it('refuses to store a key on the browser surface and says to use the environment variable', async () => {
    start();
    const result = await app.dispatcher.dispatch(
      'providers.setKey',
      { id: 'openai', key: SECRET },
      { surface: 'browser' },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(JSON.stringify(result)).toContain('OPENAI_API_KEY');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('reads keys from the environment on the browser surface and reports only that one is set', async () => {
    start({ env: { OPENAI_API_KEY: SECRET } });
    const { providers } = await call('providers.list', {});
    expect(providers.find((provider) => provider.id === 'openai')).toMatchObject({
      keySet: true,
      keySource: 'environment',
    });
    expect(JSON.stringify(providers)).not.toContain(SECRET);
  });

  it('saves settings, tests the connection with the key, and explains an unreachable server', async () => {
    start({ vault: memoryVault() });
    const saved = await call('providers.save', {
      id: 'custom',
      baseUrl: stub.baseUrl,
      defaultModel: 'stub-model',
      apiKeyEnv: 'CUSTOM_LLM_KEY',
    });
    expect(saved).toMatchObject({ saved: true, baseUrl: stub.baseUrl, keySet: false });
    const tested = await call('providers.test', { id: 'custom' });
    expect(tested).toMatchObject({ ok: true, models: ['stub-model'] });
    const down = await call('providers.test', { id: 'custom', baseUrl: 'http://127.0.0.1:9/v1' });
    expect(down.ok).toBe(false);
    expect(down.message).toMatch(/Nothing is listening|Could not reach|No answer/);
    expect(
      events.some((event) => event.channel === 'store.changed' && event.payload.topic === 'providers'),
    ).toBe(true);
  });

  it('never lets a stored key reach a reply, a hub event or an export', async () => {
    const vault = memoryVault();
    start({ vault });
    await call('providers.save', {
      id: 'custom',
      baseUrl: stub.baseUrl,
      defaultModel: 'stub-model',
      apiKeyEnv: 'CUSTOM_LLM_KEY',
    });
    const afterKey = await call('providers.setKey', { id: 'custom', key: SECRET });
    expect(afterKey).toMatchObject({ keySet: true, keySource: 'vault' });
    expect(vault.entries.get('custom')).toBe(SECRET);

    await call('providers.list', {});
    await call('providers.test', { id: 'custom' });
    expect(stub.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);

    const fleet: FleetInput = {
      version: 1,
      name: 'Keyed',
      agents: [
        {
          name: 'writer',
          type: 'llm',
          provider: { id: 'custom', baseUrl: stub.baseUrl, apiKeyEnv: 'CUSTOM_LLM_KEY', model: 'stub-model' },
        },
      ],
      team: { pattern: 'sequential' },
    };
    const summary = await call('fleets.save', { fleet });
    await call('fleets.get', { id: summary.id });
    const { sessionId } = await call('runs.start', {
      source: { fleetId: summary.id },
      task: 'Write a line.',
    });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 10_000 })
      .toBe('completed');
    // The run really used the stored key.
    expect(stub.chatRequests().at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
    await call('sessions.messages', { id: sessionId });

    const exported: string[] = [];
    for (const format of ['json', 'md', 'html', 'otlp'] as const) {
      const { path } = await call('sessions.export', { id: sessionId, format });
      exported.push(readFileSync(path, 'utf8'));
    }
    expect(exported.join('\n')).not.toContain(SECRET);
    expect(events.some((event) => event.channel === 'run.events')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(replies)).not.toContain(SECRET);

    const cleared = await call('providers.setKey', { id: 'custom', key: '' });
    expect(cleared.keySet).toBe(false);
  });

  it('hides the key when a server echoes it in an error', async () => {
    const service = new ProviderService({
      dataDir: temp.dir,
      vault: null,
      env: { OPENAI_API_KEY: SECRET },
      fetch: async () => new Response(`Incorrect API key provided: ${SECRET}`, { status: 401 }),
    });
    const result = await service.test('openai');
    expect(result.ok).toBe(false);
    expect(result.message).toContain('refused the API key');
    expect(result.message).not.toContain(SECRET);
  });

  it('gives up on a server that never answers within the timeout', async () => {
    const service = new ProviderService({
      dataDir: temp.dir,
      vault: null,
      env: {},
      testTimeoutMs: 50,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    const result = await service.test('ollama');
    expect(result).toMatchObject({ ok: false });
    expect(result.message).toContain('No answer');
  });
});
