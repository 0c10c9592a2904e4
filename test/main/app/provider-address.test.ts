import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output, Result } from '@shared/contract';
import type { FleetInput, ProviderRef } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { PROVIDER_PRESETS } from '../../../src-main/app/services/provider-presets';
import { dispatchChecked } from '../../helpers/checked-dispatch';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { makeTempDir } from '../../helpers/temp-dir';

/**
 * One resolved address decides where a run connects and where its key goes. Real listeners sit
 * on 127.0.0.1 at every local preset's built-in port and at what OPENAI_BASE_URL names; none of
 * them may ever see a request, let alone a key. Only the configured listener does.
 */

const SECRET = 'sk-test-CONFIGURED-5e4d3c2b1a';
const ENV_KEY = 'sk-test-FROM-ENVIRONMENT-0f9e8d';
const ADMIN_KEY = 'sk-admin-FROM-ENVIRONMENT-7a6b5c';
const root = join(import.meta.dirname, '../../..');

/** The built-in ports of the local presets (ollama 11434, LM Studio 1234, vLLM 8000, llama.cpp 8080). */
const presetPorts = PROVIDER_PRESETS.flatMap((preset) => {
  const url = new URL(preset.baseUrl);
  return url.hostname === 'localhost' && url.port !== '' && preset.id !== 'custom' ? [Number(url.port)] : [];
});

const oneAgent = (provider: ProviderRef): FleetInput => ({
  version: 1,
  name: 'Addressed',
  agents: [{ name: 'writer', type: 'llm', provider }],
  team: { pattern: 'sequential' },
});

let traps: OpenAiStub[] = [];
let envTrap: OpenAiStub;
let configured: OpenAiStub;
let typed: OpenAiStub;
const savedEnv: Record<string, string | undefined> = {};
const SDK_ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_ADMIN_KEY', 'OPENAI_CUSTOM_HEADERS'];

beforeAll(async () => {
  traps = await Promise.all([...new Set(presetPorts)].map((port) => startOpenAiStub({ port })));
  envTrap = await startOpenAiStub();
  configured = await startOpenAiStub();
  typed = await startOpenAiStub();
  // What the openai SDK would read by itself if it were let: none of it may reach a request.
  for (const name of SDK_ENV) savedEnv[name] = process.env[name];
  process.env.OPENAI_BASE_URL = envTrap.baseUrl;
  process.env.OPENAI_API_KEY = ENV_KEY;
  process.env.OPENAI_ADMIN_KEY = ADMIN_KEY;
  process.env.OPENAI_CUSTOM_HEADERS = `Authorization: Bearer ${ENV_KEY}\nX-Leak: ${ENV_KEY}`;
});
afterAll(async () => {
  for (const name of SDK_ENV) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  await Promise.all([...traps, envTrap, configured, typed].map((stub) => stub.close()));
});

/** Every request the listeners that must stay silent received. */
function trapped(): string[] {
  return [...traps, envTrap].flatMap((trap) =>
    trap.requests.map((request) => `${trap.baseUrl} ${request.path}`),
  );
}

function headersSeen(stub: OpenAiStub): string[] {
  return stub.requests.flatMap((request) => [
    String(request.headers.authorization),
    String(request.headers['x-leak']),
  ]);
}

describe('where a run connects and sends its key', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;

  async function dispatch<C extends ChannelName>(channel: C, input: Input<C>): Promise<Result<Output<C>>> {
    return (await dispatchChecked(app.dispatcher, channel, input, { surface: 'browser' })) as Result<
      Output<C>
    >;
  }
  async function call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> {
    const result = await dispatch(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value;
  }
  async function runToEnd(provider: ProviderRef): Promise<string> {
    const { sessionId } = await call('runs.start', { source: { fleet: oneAgent(provider) }, task: 'hello' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status)
      .toBe('completed');
    return sessionId;
  }

  beforeEach(() => {
    temp = makeTempDir();
    for (const stub of [...traps, envTrap, configured, typed]) stub.requests.length = 0;
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
      resourcesDir: join(temp.dir, 'resources'),
      env: { OLLAMA_KEY: SECRET, OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: envTrap.baseUrl },
    });
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('listens at every local preset port', () => {
    expect(presetPorts.sort((a, b) => a - b)).toEqual([1234, 8000, 8080, 11434]);
  });

  it('sends a preset agent to the address saved in Settings, with its key, and nowhere else', async () => {
    await call('providers.save', {
      id: 'ollama',
      baseUrl: configured.baseUrl,
      defaultModel: 'm',
      apiKeyEnv: 'OLLAMA_KEY',
    });
    await runToEnd({ id: 'ollama', model: 'm', apiKeyEnv: 'OLLAMA_KEY' });
    expect(configured.chatRequests()).toHaveLength(1);
    expect(configured.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(configured.chatRequests()[0]?.headers['x-leak']).toBeUndefined();
    expect(trapped()).toEqual([]);
  });

  it("sends a fleet file's baseUrl the key only when Settings names that address for it", async () => {
    await call('providers.save', {
      id: 'ollama',
      baseUrl: configured.baseUrl,
      defaultModel: 'm',
      apiKeyEnv: 'OLLAMA_KEY',
    });
    await runToEnd({ id: 'ollama', model: 'm', apiKeyEnv: 'OLLAMA_KEY', baseUrl: configured.baseUrl });
    expect(configured.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);

    const refused = await dispatch('runs.start', {
      source: {
        fleet: oneAgent({ id: 'ollama', model: 'm', apiKeyEnv: 'OLLAMA_KEY', baseUrl: typed.baseUrl }),
      },
      task: 'leak it',
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(typed.requests).toEqual([]);
    expect(trapped()).toEqual([]);
  });

  it("uses a preset's built-in address when nothing is saved, and a key-less agent sends no key", async () => {
    // Nothing saved for LM Studio: its built-in address (a trap here) is where it goes.
    const lmstudio = traps.find((trap) => new URL(trap.baseUrl).port === '1234');
    await runToEnd({ id: 'lmstudio', model: 'm' });
    expect(lmstudio?.chatRequests()).toHaveLength(1);
    const seen = headersSeen(lmstudio!).join(' ');
    expect(seen).not.toContain(ENV_KEY);
    expect(seen).not.toContain(ADMIN_KEY);
    expect(seen).not.toContain(SECRET);
    lmstudio!.requests.length = 0;
    expect(trapped()).toEqual([]);
  });

  it('refuses a Custom provider with no baseUrl and nothing saved, before any request', async () => {
    const result = await dispatch('runs.start', {
      source: { fleet: oneAgent({ id: 'custom', model: 'm' }) },
      task: 'where to?',
    });
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.error.message).toMatch(/Custom.*has no address.*Settings > Providers/);
    expect((await call('sessions.list', {})).total).toBe(0);
    expect(trapped()).toEqual([]);
  });

  it('sends an openai agent to Settings, not to OPENAI_BASE_URL, with only the key it names', async () => {
    await call('providers.save', {
      id: 'openai',
      baseUrl: configured.baseUrl,
      defaultModel: 'm',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    await runToEnd({ id: 'openai', model: 'm' });
    expect(configured.chatRequests()).toHaveLength(1);
    const seen = headersSeen(configured).join(' ');
    expect(seen).not.toContain(ENV_KEY);
    expect(seen).not.toContain(ADMIN_KEY);
    expect(trapped()).toEqual([]);
  });
});

describe('fleetscope run (a real process)', () => {
  function runCli(args: string[], env: NodeJS.ProcessEnv) {
    const child = spawn(process.execPath, [join(root, 'test/helpers/cli-child.mjs'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code, stdout, stderr })),
    );
  }

  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  let fleetFile: string;
  const env = () => ({
    OLLAMA_KEY: SECRET,
    OPENAI_API_KEY: ENV_KEY,
    OPENAI_ADMIN_KEY: ADMIN_KEY,
    OPENAI_BASE_URL: envTrap.baseUrl,
  });

  beforeEach(() => {
    temp = makeTempDir();
    dataDir = join(temp.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    for (const stub of [...traps, envTrap, configured, typed]) stub.requests.length = 0;
    // Settings > Providers as the app saves it: Ollama moved to the configured listener.
    writeFileSync(
      join(dataDir, 'providers.json'),
      JSON.stringify({ ollama: { baseUrl: configured.baseUrl, defaultModel: 'm', apiKeyEnv: 'OLLAMA_KEY' } }),
    );
    fleetFile = join(temp.dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(oneAgent({ id: 'ollama', model: 'm', apiKeyEnv: 'OLLAMA_KEY' })));
  });
  afterEach(() => temp.remove());

  it('connects where Settings says and sends the key there only', async () => {
    const result = await runCli(['run', fleetFile, '--task', 'hi', '--data-dir', dataDir], env());
    expect(result.code).toBe(0);
    expect(result.stderr.trim()).toBe(`key: OLLAMA_KEY is sent to ${configured.baseUrl}`);
    expect(configured.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(trapped()).toEqual([]);
  }, 30_000);

  it('--base-url is the one address: the key goes there and Settings sees nothing', async () => {
    const result = await runCli(
      ['run', fleetFile, '--task', 'hi', '--data-dir', dataDir, '--base-url', typed.baseUrl],
      env(),
    );
    expect(result.code).toBe(0);
    expect(typed.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(configured.requests).toEqual([]);
    expect(trapped()).toEqual([]);
  }, 30_000);

  it('a Custom agent with no address says so, exits non-zero and sends nothing', async () => {
    writeFileSync(
      fleetFile,
      JSON.stringify(oneAgent({ id: 'custom', model: 'm', apiKeyEnv: 'OPENAI_API_KEY' })),
    );
    const result = await runCli(['run', fleetFile, '--task', 'hi', '--data-dir', dataDir], env());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Custom.*has no address/);
    expect(trapped()).toEqual([]);
    expect(configured.requests).toEqual([]);
  }, 30_000);
});
