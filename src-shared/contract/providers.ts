import { z } from 'zod';
import { command, query } from './define';
import { httpUrlSchema, LIMITS } from './fields';

/** Provider presets the settings page offers; `scripted` is built in and always present. */
export const PROVIDER_IDS = [
  'scripted',
  'openai',
  'azure',
  'ollama',
  'lmstudio',
  'vllm',
  'llamacpp',
  'openrouter',
  'custom',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

const envName = z
  .string()
  .max(LIMITS.name)
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name (A-Z, 0-9, _)');

/** One provider as the renderer sees it. The key itself never leaves main: only `keySet`. */
export const providerInfoSchema = z.object({
  id: z.enum(PROVIDER_IDS),
  label: z.string(),
  baseUrl: httpUrlSchema,
  defaultModel: z.string(),
  /** Environment variable the runtime reads the key from (browser/CLI), null when none is needed. */
  apiKeyEnv: z.string().nullable(),
  /** Whether a key is available: stored in the key vault or present in the environment. */
  keySet: z.boolean(),
  /** Where the key comes from when set. */
  keySource: z.enum(['vault', 'environment']).nullable(),
  /** Local servers and the scripted provider work without a key. */
  keyOptional: z.boolean(),
  /** The user changed the preset's defaults. */
  saved: z.boolean(),
  /** Built in (scripted): cannot be edited. */
  builtIn: z.boolean(),
  hint: z.string(),
});
export type ProviderInfo = z.infer<typeof providerInfoSchema>;

/** How keys are stored on this surface. */
export const keyStorageSchema = z.object({
  kind: z.enum(['vault', 'environment']),
  /** False when setKey is refused here. */
  writable: z.boolean(),
  /** A sentence for the settings page (e.g. "no keyring on Linux: keys are only obfuscated"). */
  message: z.string(),
  /** Stored but weakly protected (Linux without a keyring). */
  weak: z.boolean(),
});
export type KeyStorage = z.infer<typeof keyStorageSchema>;

export const providerTestResultSchema = z.object({
  ok: z.boolean(),
  models: z.array(z.string()),
  /** Plain words: what worked, or what failed and what to try. */
  message: z.string(),
  elapsedMs: z.number(),
});
export type ProviderTestResult = z.infer<typeof providerTestResultSchema>;

export const toolInfoSchema = z.object({ name: z.string(), description: z.string() });
export type ToolInfo = z.infer<typeof toolInfoSchema>;

const providerId = z.enum(PROVIDER_IDS);

export const providerChannels = {
  'providers.list': query(
    z.object({}).strict(),
    z.object({ providers: z.array(providerInfoSchema), keyStorage: keyStorageSchema }),
    'Provider presets with their saved settings; whether a key is set, never the key.',
  ),
  'providers.save': command(
    z
      .object({
        id: providerId,
        baseUrl: httpUrlSchema,
        defaultModel: z.string().max(LIMITS.name),
        apiKeyEnv: envName.nullable(),
      })
      .strict(),
    providerInfoSchema,
    "Save a provider's base URL, default model and key variable.",
  ),
  'providers.setKey': command(
    z.object({ id: providerId, key: z.string().max(10_000) }).strict(),
    providerInfoSchema,
    'Store (or, with an empty key, remove) an API key. Write-only: it is never read back.',
  ),
  'providers.test': command(
    z.object({ id: providerId, baseUrl: httpUrlSchema.optional() }).strict(),
    providerTestResultSchema,
    'List the models of a provider (GET {baseUrl}/models) with its key, or say why that failed.',
  ),
  'tools.list': query(z.object({}).strict(), z.array(toolInfoSchema), 'Tools agents may use.'),
} as const;
