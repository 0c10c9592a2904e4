import type { AgentSpec, Fleet, ProviderRef } from '@shared/domain';
import { SCRIPTED_PROVIDER } from '../../llm';
import type { ProviderOverrides } from './run-types';

function overrideProvider(provider: ProviderRef, overrides: ProviderOverrides): ProviderRef {
  // Scripted agents answer from their script; pointing them at a server would change nothing.
  if (provider.id === SCRIPTED_PROVIDER) return provider;
  return {
    ...provider,
    ...(overrides.baseUrl !== undefined ? { baseUrl: overrides.baseUrl } : {}),
    ...(overrides.model !== undefined ? { model: overrides.model } : {}),
    ...(overrides.apiKeyEnv !== undefined ? { apiKeyEnv: overrides.apiKeyEnv } : {}),
  };
}

function overrideAgent(agent: AgentSpec, overrides: ProviderOverrides): AgentSpec {
  return {
    ...agent,
    ...(agent.provider ? { provider: overrideProvider(agent.provider, overrides) } : {}),
    ...(agent.fleet ? { fleet: applyProviderOverrides(agent.fleet, overrides) } : {}),
  };
}

/** The fleet with every LLM provider (nested teams and the selector model included) overridden. */
export function applyProviderOverrides(fleet: Fleet, overrides: ProviderOverrides | undefined): Fleet {
  if (!overrides || Object.values(overrides).every((value) => value === undefined)) return fleet;
  const team =
    fleet.team.pattern === 'selector' && fleet.team.selector
      ? { ...fleet.team, selector: overrideProvider(fleet.team.selector, overrides) }
      : fleet.team;
  return { ...fleet, team, agents: fleet.agents.map((agent) => overrideAgent(agent, overrides)) };
}
