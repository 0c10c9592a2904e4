import type { FleetInput } from '@shared/domain';

export const PROVIDER_PRESETS = [
  { id: 'scripted', label: 'Scripted (built in, no key)' },
  { id: 'openai', label: 'OpenAI' },
  { id: 'ollama', label: 'Ollama' },
  { id: 'lmstudio', label: 'LM Studio' },
  { id: 'openrouter', label: 'OpenRouter' },
  { id: 'custom', label: 'Other OpenAI-compatible' },
] as const;

export interface SingleAgentChoice {
  name: string;
  systemPrompt: string;
  provider: string;
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
}

/** A one-agent fleet for "chat with one agent": the user talks, the agent answers. */
export function singleAgentFleet(choice: SingleAgentChoice): FleetInput {
  const scripted = choice.provider === 'scripted';
  return {
    version: 1,
    name: `Chat with ${choice.name}`,
    description: 'A single agent, started from the Sessions page.',
    agents: [
      {
        name: choice.name,
        type: scripted ? 'scripted' : 'llm',
        role: 'assistant',
        systemPrompt: choice.systemPrompt,
        provider: {
          id: choice.provider,
          model: scripted ? 'scripted' : choice.model || 'gpt-4o-mini',
          ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
          ...(choice.apiKeyEnv ? { apiKeyEnv: choice.apiKeyEnv } : {}),
        },
        ...(scripted
          ? {
              script: [
                {
                  content: `Hello, I am ${choice.name}, a scripted agent. I received your task and would work on it here; pick a real provider to get real answers.`,
                  chunkSize: 6,
                  delayMs: 25,
                },
              ],
            }
          : {}),
      },
    ],
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 2 },
  };
}
