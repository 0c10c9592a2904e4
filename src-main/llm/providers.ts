import type { ProviderRef } from '@shared/domain';
import type { ModelClient } from './model-client';
import { OpenAiModelClient } from './openai-client';
import { ProviderError } from './provider-error';

/** Built-in provider id whose agents answer from their fleet `script`; it needs no model client. */
export const SCRIPTED_PROVIDER = 'scripted';

/**
 * Where one provider's requests, and its key, go. It returns the address, or throws an Error whose
 * message says why the provider has none (it becomes ProviderError('no-address')).
 */
export type ProviderAddress = (provider: ProviderRef) => string;

/** Without a resolver, a provider goes only to the `baseUrl` it names itself. */
const ownAddress: ProviderAddress = (provider) => {
  if (provider.baseUrl) return provider.baseUrl;
  throw new Error(`Provider "${provider.id}" names no base URL, so there is nowhere to send its requests.`);
};

export interface ModelClientSettings {
  /** Where `apiKeyEnv` is looked up. */
  env: NodeJS.ProcessEnv;
  maxRetries?: number;
  /** Milliseconds without data before a streaming reply is given up. */
  idleTimeoutMs?: number;
  /**
   * The one address each provider connects to (the app's: Settings > Providers, see
   * ProviderService.address). The key goes there and nowhere else; nothing falls back to the SDK's
   * environment (OPENAI_BASE_URL).
   */
  address?: ProviderAddress;
}

/** Creates the client for one provider reference. Throws ProviderError('missing-api-key' or 'no-address'). */
export type ModelClientFactory = (provider: ProviderRef) => ModelClient;

export function createModelClientFactory(settings: ModelClientSettings): ModelClientFactory {
  const cache = new Map<string, ModelClient>();
  return (provider) => {
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
    let baseUrl: string;
    try {
      baseUrl = (settings.address ?? ownAddress)(provider);
    } catch (error) {
      throw new ProviderError('no-address', error instanceof Error ? error.message : String(error));
    }
    // One client per endpoint and key keeps HTTP connections pooled across agents.
    const cacheKey = JSON.stringify([provider.id, baseUrl, provider.apiKeyEnv ?? '']);
    const cached = cache.get(cacheKey);
    if (cached) return cached;
    const client = new OpenAiModelClient({
      baseUrl,
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
      ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
      providerLabel: `provider "${provider.id}"`,
    });
    cache.set(cacheKey, client);
    return client;
  };
}
