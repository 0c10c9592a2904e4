import { UsageError } from '../command';

/** `--base-url`, `--model`, `--api-key-env`: provider overrides, as `run` takes them. */
export const PROVIDER_FLAGS = {
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
} as const;

/** Checks the provider override flags; the overrides a run request carries. */
export function providerOverrides(values: {
  'base-url'?: string | undefined;
  model?: string | undefined;
  'api-key-env'?: string | undefined;
}): { baseUrl?: string; model?: string; apiKeyEnv?: string } {
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !URL.canParse(baseUrl))
    throw new UsageError(`--base-url must be a URL, got "${baseUrl}".`);
  const apiKeyEnv = values['api-key-env'];
  if (apiKeyEnv !== undefined && !/^[A-Z_][A-Z0-9_]*$/.test(apiKeyEnv))
    throw new UsageError(
      `--api-key-env must name an environment variable (like OPENAI_API_KEY), got "${apiKeyEnv}".`,
    );
  return {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
  };
}
