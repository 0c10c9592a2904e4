import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output, Result } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp, type KeyVault } from '../../../src-main/app';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { dispatchChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

const SECRET = 'sk-test-DESTINATION-9d8c7b6a';

function memoryVault(): KeyVault {
  const entries = new Map<string, string>();
  return {
    available: true,
    weak: false,
    message: 'test vault',
    has: (id) => entries.has(id),
    get: (id) => entries.get(id),
    set: (id, key) => void entries.set(id, key),
    delete: (id) => void entries.delete(id),
  };
}

const oneAgent = (provider: NonNullable<FleetInput['agents'][number]['provider']>): FleetInput => ({
  version: 1,
  name: 'Keyed',
  agents: [{ name: 'writer', type: 'llm', provider }],
  team: { pattern: 'sequential' },
});

describe('where a provider key may go', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;
  let home: OpenAiStub;
  let elsewhere: OpenAiStub;

  async function dispatch<C extends ChannelName>(channel: C, input: Input<C>): Promise<Result<Output<C>>> {
    return (await dispatchChecked(app.dispatcher, channel, input, { surface: 'desktop' })) as Result<
      Output<C>
    >;
  }
  async function call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> {
    const result = await dispatch(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value;
  }

  beforeEach(async () => {
    temp = makeTempDir();
    home = await startOpenAiStub();
    elsewhere = await startOpenAiStub();
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'desktop',
      pingIntervalMs: 0,
      seedSamples: false,
      resourcesDir: join(temp.dir, 'resources'),
      keyVault: memoryVault(),
      env: { OPENAI_API_KEY: SECRET, GITHUB_TOKEN: 'ghp_not_for_models' },
    });
    await call('providers.save', {
      id: 'custom',
      baseUrl: home.baseUrl,
      defaultModel: 'stub-model',
      apiKeyEnv: 'CUSTOM_LLM_KEY',
    });
    await call('providers.setKey', { id: 'custom', key: SECRET });
  });
  afterEach(async () => {
    await app.close();
    await home.close();
    await elsewhere.close();
    temp.remove();
  });

  it('refuses a fleet that would send a key to another host, before any request is made', async () => {
    const result = await dispatch('runs.start', {
      source: {
        fleet: oneAgent({
          id: 'openai',
          baseUrl: elsewhere.baseUrl,
          apiKeyEnv: 'OPENAI_API_KEY',
          model: 'm',
        }),
      },
      task: 'leak it',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    if (!result.ok) expect(result.error.message).toContain('OPENAI_API_KEY');
    expect(elsewhere.requests).toEqual([]);
    expect((await call('sessions.list', {})).total).toBe(0);
  });

  it('refuses a key variable no provider uses (e.g. GITHUB_TOKEN)', async () => {
    const result = await dispatch('runs.start', {
      source: {
        fleet: oneAgent({ id: 'custom', baseUrl: elsewhere.baseUrl, apiKeyEnv: 'GITHUB_TOKEN', model: 'm' }),
      },
      task: 'leak it',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(elsewhere.requests).toEqual([]);
  });

  it('sends the key to the address configured for it, and masks it in exports even when echoed', async () => {
    home.respondWith((request) => ({
      type: 'text',
      content: `you sent ${String(request.headers.authorization)}`,
    }));
    const { sessionId } = await call('runs.start', {
      source: {
        fleet: oneAgent({
          id: 'custom',
          baseUrl: home.baseUrl,
          apiKeyEnv: 'CUSTOM_LLM_KEY',
          model: 'stub-model',
        }),
      },
      task: 'hello',
    });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    expect(home.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    for (const format of ['json', 'md', 'html', 'otlp'] as const) {
      const { path } = await call('sessions.export', { id: sessionId, format });
      const text = readFileSync(path, 'utf8');
      expect(text).toContain('you sent');
      expect(text).not.toContain(SECRET);
    }
  });

  it('tests an unsaved address without the key', async () => {
    await call('providers.test', { id: 'custom', baseUrl: elsewhere.baseUrl });
    expect(elsewhere.requests.at(-1)?.headers.authorization).toBeUndefined();
    await call('providers.test', { id: 'custom' });
    expect(home.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });
});
