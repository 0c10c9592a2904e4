import type { ProviderRef } from '@shared/domain';
import type { ModelClient } from './model-client';
import { OpenAiModelClient } from './openai-client';
import { ProviderError } from './provider-error';

/** Built-in provider id whose agents answer from their fleet `script`; it needs no model client. */
export const SCRIPTED_PROVIDER = 'scripted';

/** Default endpoints of the provider presets; `openai` and `custom` use the SDK's or the fleet's. */
const PRESET_BASE_URLS: Readonly<Record<string, string>> = {
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  llamacpp: 'http://127.0.0.1:8080/v1',
  openrouter: 'https://openrouter.ai/api/v1',
};

export interface ModelClientSettings {
  /** Where `apiKeyEnv` is looked up. */
  env: NodeJS.ProcessEnv;
  maxRetries?: number;
  /** Milliseconds without data before a streaming reply is given up. */
  idleTimeoutMs?: number;
}

/** Creates the client for one provider reference. Throws ProviderError('missing-api-key'). */
export type ModelClientFactory = (provider: ProviderRef) => ModelClient;

export function createModelClientFactory(settings: ModelClientSettings): ModelClientFactory {
  const cache = new Map<string, ModelClient>();
  return (provider) => {
    const baseUrl = provider.baseUrl ?? PRESET_BASE_URLS[provider.id];
    let apiKey: string | undefined;
    if (provider.apiKeyEnv) {
      apiKey = settings.env[provider.apiKeyEnv];
      if (!apiKey) {
        throw new ProviderError(
          'missing-api-key',
          `The environment variable ${provider.apiKeyEnv} is not set; provider "${provider.id}" needs an API key there.`,
        );
      }
    }
    // One client per endpoint and key keeps HTTP connections pooled across agents.
    const cacheKey = JSON.stringify([provider.id, baseUrl ?? '', provider.apiKeyEnv ?? '']);
    const cached = cache.get(cacheKey);
    if (cached) return cached;
    const client = new OpenAiModelClient({
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
      ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
      providerLabel: `provider "${provider.id}"`,
    });
    cache.set(cacheKey, client);
    return client;
  };
}
