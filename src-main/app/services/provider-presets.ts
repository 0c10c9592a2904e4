import type { ProviderId } from '@shared/contract';
import { AppError } from '../handlers/errors';

/** The provider presets of Settings > Providers: where each one lives and which key it reads. */
export interface Preset {
  id: ProviderId;
  label: string;
  /** The built-in address; a placeholder for the form when `addressRequired`. */
  baseUrl: string;
  /** True when runs need an address saved in Settings (or the agent's baseUrl) first. */
  addressRequired: boolean;
  defaultModel: string;
  apiKeyEnv: string | null;
  keyOptional: boolean;
  hint: string;
}

export const PROVIDER_PRESETS: readonly Preset[] = [
  {
    id: 'scripted',
    addressRequired: false,
    label: 'Scripted (built in)',
    baseUrl: 'http://localhost/scripted',
    defaultModel: 'scripted',
    apiKeyEnv: null,
    keyOptional: true,
    hint: 'Canned replies from the fleet file; no model, no key, no network.',
  },
  {
    id: 'openai',
    addressRequired: false,
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4o-mini',
    apiKeyEnv: 'OPENAI_API_KEY',
    keyOptional: false,
    hint: 'Needs an API key from platform.openai.com.',
  },
  {
    id: 'azure',
    addressRequired: true,
    label: 'Azure OpenAI',
    baseUrl: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
    defaultModel: 'gpt-4o-mini',
    apiKeyEnv: 'AZURE_OPENAI_API_KEY',
    keyOptional: false,
    hint: "Use your resource's /openai/v1 endpoint; the model is your deployment name.",
  },
  {
    id: 'ollama',
    addressRequired: false,
    label: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    defaultModel: 'llama3.2',
    apiKeyEnv: null,
    keyOptional: true,
    hint: 'Local; start it with `ollama serve`.',
  },
  {
    id: 'lmstudio',
    addressRequired: false,
    label: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    defaultModel: 'local-model',
    apiKeyEnv: null,
    keyOptional: true,
    hint: "Local; start the server from LM Studio's Developer tab.",
  },
  {
    id: 'vllm',
    addressRequired: false,
    label: 'vLLM',
    baseUrl: 'http://localhost:8000/v1',
    defaultModel: 'meta-llama/Llama-3.1-8B-Instruct',
    apiKeyEnv: null,
    keyOptional: true,
    hint: 'Local; `vllm serve <model>`.',
  },
  {
    id: 'llamacpp',
    addressRequired: false,
    label: 'llama.cpp server',
    baseUrl: 'http://localhost:8080/v1',
    defaultModel: 'default',
    apiKeyEnv: null,
    keyOptional: true,
    hint: 'Local; `llama-server -m model.gguf`.',
  },
  {
    id: 'openrouter',
    addressRequired: false,
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    defaultModel: 'openai/gpt-4o-mini',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    keyOptional: false,
    hint: 'Needs an API key from openrouter.ai.',
  },
  {
    id: 'custom',
    addressRequired: true,
    label: 'Custom (OpenAI-compatible)',
    baseUrl: 'http://localhost:8000/v1',
    defaultModel: 'model',
    apiKeyEnv: null,
    keyOptional: true,
    hint: 'Any server that speaks the OpenAI chat completions API.',
  },
];

export function presetFor(id: ProviderId): Preset {
  const preset = PROVIDER_PRESETS.find((candidate) => candidate.id === id);
  if (!preset) throw new AppError('not-found', `No provider "${id}".`);
  return preset;
}
