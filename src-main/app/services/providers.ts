import type { Logger } from '@shared/logger';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  httpUrlSchema,
  type KeyStorage,
  type ProviderId,
  type ProviderInfo,
  type ProviderTestResult,
} from '@shared/contract';
import { AppError } from '../handlers/errors';
import { PROVIDER_PRESETS, presetFor } from './provider-presets';

export { PROVIDER_PRESETS } from './provider-presets';

/**
 * Where API keys live on the desktop (Electron safeStorage). Implemented in src-main/electron;
 * the browser and CLI surfaces have none and read keys from environment variables instead.
 */
export interface KeyVault {
  /** False when keys cannot be stored at all. */
  readonly available: boolean;
  /** True when keys are stored but only obfuscated (Linux without a keyring). */
  readonly weak: boolean;
  /** A sentence for the settings page about how keys are protected here. */
  readonly message: string;
  has(providerId: string): boolean;
  get(providerId: string): string | undefined;
  set(providerId: string, key: string): void;
  delete(providerId: string): void;
}

const savedEntrySchema = z.object({
  baseUrl: httpUrlSchema,
  defaultModel: z.string(),
  apiKeyEnv: z.string().nullable(),
});
type SavedConfig = Record<string, z.infer<typeof savedEntrySchema>>;

export interface ProviderServiceOptions {
  dataDir: string;
  /** The desktop key vault; null on the browser and CLI surfaces. */
  vault: KeyVault | null;
  env: NodeJS.ProcessEnv;
  /** Milliseconds before a connection test gives up. */
  testTimeoutMs?: number;
  fetch?: typeof fetch;
  /** Told when the saved providers file cannot be read (it is then treated as empty). */
  logger?: Logger;
}

const DEFAULT_TEST_TIMEOUT_MS = 8000;

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function sameOrigin(a: string, b: string): boolean {
  const left = originOf(a);
  return left !== null && left === originOf(b);
}

/** Provider presets, their saved settings (providers.json) and their keys (vault or environment). */
export class ProviderService {
  private readonly file: string;

  constructor(private readonly options: ProviderServiceOptions) {
    this.file = join(options.dataDir, 'providers.json');
  }

  keyStorage(): KeyStorage {
    const vault = this.options.vault;
    if (vault?.available) return { kind: 'vault', writable: true, weak: vault.weak, message: vault.message };
    if (vault) return { kind: 'environment', writable: false, weak: false, message: vault.message };
    return {
      kind: 'environment',
      writable: false,
      weak: false,
      message:
        'Keys are read from environment variables on this surface (set them before `fleetscope serve` or `fleetscope run`); they cannot be entered here.',
    };
  }

  list(): ProviderInfo[] {
    return PROVIDER_PRESETS.map((preset) => this.info(preset.id));
  }

  info(id: ProviderId): ProviderInfo {
    const preset = presetFor(id);
    const saved = this.readSaved()[id];
    const apiKeyEnv = saved ? saved.apiKeyEnv : preset.apiKeyEnv;
    const keySource = this.keySource(id, apiKeyEnv);
    return {
      id,
      label: preset.label,
      baseUrl: saved?.baseUrl ?? preset.baseUrl,
      defaultModel: saved?.defaultModel ?? preset.defaultModel,
      apiKeyEnv,
      keySet: keySource !== null,
      keySource,
      keyOptional: preset.keyOptional,
      saved: saved !== undefined,
      builtIn: id === 'scripted',
      hint: preset.hint,
    };
  }

  save(input: {
    id: ProviderId;
    baseUrl: string;
    defaultModel: string;
    apiKeyEnv: string | null;
  }): ProviderInfo {
    if (input.id === 'scripted')
      throw new AppError('read-only', 'The built-in scripted provider has no settings.');
    const saved = this.readSaved();
    saved[input.id] = {
      baseUrl: input.baseUrl,
      defaultModel: input.defaultModel,
      apiKeyEnv: input.apiKeyEnv,
    };
    this.writeSaved(saved);
    return this.info(input.id);
  }

  setKey(id: ProviderId, key: string): ProviderInfo {
    if (id === 'scripted') throw new AppError('read-only', 'The built-in scripted provider needs no key.');
    const vault = this.options.vault;
    if (!vault?.available) {
      const variable = this.info(id).apiKeyEnv ?? 'an environment variable named in the provider settings';
      throw new AppError(
        'unavailable',
        `Keys cannot be stored on this surface. Set ${variable} in the environment before starting Fleetscope.`,
      );
    }
    const trimmed = key.trim();
    if (trimmed.length === 0) vault.delete(id);
    else vault.set(id, trimmed);
    return this.info(id);
  }

  /** Lists the provider's models with its key; failures come back as plain words, never thrown. */
  async test(id: ProviderId, baseUrlOverride?: string): Promise<ProviderTestResult> {
    const started = Date.now();
    const done = (ok: boolean, message: string, models: string[] = []): ProviderTestResult => ({
      ok,
      models,
      message: this.redact(message),
      elapsedMs: Date.now() - started,
    });
    if (id === 'scripted')
      return done(true, 'The scripted provider is built in and always available.', ['scripted']);
    const info = this.info(id);
    const baseUrl = (baseUrlOverride ?? info.baseUrl).replace(/\/+$/, '');
    // A key only goes to the address saved for its provider, never to an unsaved one.
    const key = sameOrigin(baseUrl, info.baseUrl) ? this.key(id, info.apiKeyEnv) : undefined;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (key) {
      headers.authorization = `Bearer ${key}`;
      if (id === 'azure') headers['api-key'] = key;
    }
    const timeoutMs = this.options.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
    const doFetch = this.options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      return done(false, describeNetworkError(error, baseUrl, timeoutMs));
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      return done(false, describeStatus(response.status, info, baseUrl, key !== undefined, detail));
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return done(
        false,
        `${baseUrl}/models answered, but not with JSON: is this an OpenAI-compatible server?`,
      );
    }
    const models = modelIds(body);
    if (models === null)
      return done(
        false,
        `${baseUrl}/models answered without a model list: is this an OpenAI-compatible server?`,
      );
    return done(
      true,
      models.length === 0
        ? 'Connected; the server lists no models.'
        : `Connected; ${models.length} model(s) available.`,
      models,
    );
  }

  /**
   * The environment runs read keys from: the process environment, with each provider's stored
   * key visible under that provider's key variable (desktop), so fleets only ever name variables.
   */
  runEnv(): NodeJS.ProcessEnv {
    const env = this.options.env;
    return new Proxy(env, {
      get: (target, property) => {
        if (typeof property === 'string' && this.options.vault?.available) {
          const provider = this.list().find(
            (candidate) => candidate.apiKeyEnv === property && candidate.keySource === 'vault',
          );
          if (provider) return this.options.vault.get(provider.id);
        }
        return Reflect.get(target, property);
      },
    });
  }

  /**
   * The one address a provider's requests, and its key, go to: the agent's own `baseUrl`, else the
   * address saved for its preset in Settings > Providers, else the preset's built-in one. Custom
   * and Azure have no built-in address (theirs is a form's placeholder), and a provider id that is
   * no preset has none: without a given or saved one, the answer is why not. Runs connect where
   * this says (RunServiceOptions.address) and keys are checked against it, so the two never differ.
   */
  address(provider: { id: string; baseUrl?: string }): { url: string } | { problem: string } {
    if (provider.baseUrl) return { url: provider.baseUrl };
    const preset = PROVIDER_PRESETS.find((candidate) => candidate.id === provider.id);
    if (!preset)
      return {
        problem: `Provider "${provider.id}" is not one of Settings > Providers and names no base URL; give the agent a baseUrl.`,
      };
    const saved = this.readSaved()[preset.id];
    if (saved) return { url: saved.baseUrl };
    if (preset.addressRequired)
      return {
        problem: `Provider "${preset.id}" (${preset.label}) has no address: save one in Settings > Providers, or give the agent a baseUrl.`,
      };
    return { url: preset.baseUrl };
  }

  /**
   * Why an agent's provider may not run, or null when it may: it needs an address (see address),
   * and a key variable is only ever sent to the address configured for a provider that uses it
   * (Settings > Providers), so a fleet file from elsewhere cannot send OPENAI_API_KEY, or any
   * other variable, to a host of its choice.
   */
  providerProblem(provider: { id: string; baseUrl?: string; apiKeyEnv?: string }): string | null {
    if (provider.id === 'scripted') return null;
    const resolved = this.address(provider);
    if ('problem' in resolved) return resolved.problem;
    const variable = provider.apiKeyEnv;
    if (!variable) return null;
    const destination = resolved.url;
    const owners = this.list().filter((info) => info.apiKeyEnv === variable);
    if (owners.length === 0) {
      return `The key variable ${variable} belongs to no provider in Settings > Providers; set it on the provider whose address should receive it.`;
    }
    if (owners.some((owner) => sameOrigin(owner.baseUrl, destination))) return null;
    return `This fleet would send ${variable} to ${originOf(destination) ?? destination}, but that key belongs to ${owners
      .map((owner) => originOf(owner.baseUrl) ?? owner.baseUrl)
      .join(', ')}. Change the agent's base URL, or the provider's address in Settings > Providers.`;
  }

  /** The values of every key this service can send (vault or environment), for masking. */
  secretValues(): string[] {
    return PROVIDER_PRESETS.flatMap((preset) => {
      const key = this.key(preset.id, this.info(preset.id).apiKeyEnv);
      return key ? [key] : [];
    });
  }

  private key(id: ProviderId, apiKeyEnv: string | null): string | undefined {
    const vault = this.options.vault;
    if (vault?.available && vault.has(id)) return vault.get(id);
    return apiKeyEnv ? this.options.env[apiKeyEnv] || undefined : undefined;
  }

  private keySource(id: ProviderId, apiKeyEnv: string | null): ProviderInfo['keySource'] {
    if (this.options.vault?.available && this.options.vault.has(id)) return 'vault';
    if (apiKeyEnv && this.options.env[apiKeyEnv]) return 'environment';
    return null;
  }

  /** Removes every known key from a text that may echo one (server error bodies). */
  private redact(text: string): string {
    let result = text;
    for (const preset of PROVIDER_PRESETS) {
      const key = this.key(preset.id, this.info(preset.id).apiKeyEnv);
      if (key && key.length >= 4) result = result.split(key).join('[key hidden]');
    }
    return result;
  }

  /**
   * The saved settings. An entry that no longer passes the checks (say, a base URL with another
   * scheme than http or https, saved by an older version) is ignored: its preset's defaults apply.
   */
  private readSaved(): SavedConfig {
    if (!existsSync(this.file)) return {};
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.options.logger?.warn('The saved providers file could not be read; defaults apply', {
        file: this.file,
        err: error,
      });
      return {};
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
    const saved: SavedConfig = {};
    for (const preset of PROVIDER_PRESETS) {
      const entry = savedEntrySchema.safeParse((raw as Record<string, unknown>)[preset.id]);
      if (entry.success) saved[preset.id] = entry.data;
    }
    return saved;
  }

  private writeSaved(saved: SavedConfig): void {
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(saved, null, 2));
    renameSync(temporary, this.file);
  }
}

function modelIds(body: unknown): string[] | null {
  const data = (body as { data?: unknown } | null)?.data ?? (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(data)) return null;
  return data
    .map((entry: unknown) =>
      typeof entry === 'string'
        ? entry
        : ((entry as { id?: unknown; name?: unknown })?.id ?? (entry as { name?: unknown })?.name),
    )
    .filter((id): id is string => typeof id === 'string')
    .sort();
}

function describeNetworkError(error: unknown, baseUrl: string, timeoutMs: number): string {
  const name = (error as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `No answer from ${baseUrl} within ${Math.round(timeoutMs / 1000)} s. Is the server running and the address right?`;
  }
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  if (code === 'ECONNREFUSED')
    return `Nothing is listening at ${baseUrl}. Start the server, or check the port.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `The host in ${baseUrl} could not be found. Check the address and your network.`;
  const message = error instanceof Error ? error.message : String(error);
  return `Could not reach ${baseUrl}: ${message}.`;
}

function describeStatus(
  status: number,
  info: ProviderInfo,
  baseUrl: string,
  hadKey: boolean,
  detail: string,
): string {
  const suffix = detail ? ` (server said: ${detail.replace(/\s+/g, ' ').trim()})` : '';
  if (status === 401 || status === 403) {
    return hadKey
      ? `The server refused the API key (HTTP ${status}). Check that the key is right and still active.${suffix}`
      : `The server wants an API key (HTTP ${status}). Set one for ${info.label}${info.apiKeyEnv ? ` or in ${info.apiKeyEnv}` : ''}.${suffix}`;
  }
  if (status === 404)
    return `There is no /models at ${baseUrl} (HTTP 404). The base URL usually ends in /v1.${suffix}`;
  if (status === 429)
    return `The provider is rate limiting (HTTP 429). Wait a moment and try again.${suffix}`;
  if (status >= 500) return `The server failed (HTTP ${status}). Try again later.${suffix}`;
  return `Unexpected answer HTTP ${status}.${suffix}`;
}
