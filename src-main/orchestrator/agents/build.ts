import { assertNever, type AgentSpec, type UsagePricer } from '@shared/domain';
import { SCRIPTED_PROVIDER, type ModelClientFactory } from '../../llm';
import type { ToolRegistry } from '../tools';
import type { Agent } from './agent';
import { HumanAgent } from './human-agent';
import { LlmAgent } from './llm-agent';
import { ScriptedAgent } from './scripted-agent';
import { TeamAgent, type NestedTeamRunner } from './team-agent';

export interface AgentBuildServices {
  models: ModelClientFactory;
  tools: ToolRegistry;
  fileRoot: string | null;
  pricer?: UsagePricer | null;
  describe(name: string): string;
  runNested: NestedTeamRunner;
}

/** Creates an agent from its spec. Throws ProviderError when its API key is missing. */
export function buildAgent(spec: AgentSpec, services: AgentBuildServices): Agent {
  switch (spec.type) {
    case 'llm':
      if (!spec.provider) throw new Error(`Agent ${spec.name} has no provider.`);
      // The built-in scripted provider needs no model: the agent answers from its script.
      if (spec.provider.id === SCRIPTED_PROVIDER) return new ScriptedAgent(spec);
      return new LlmAgent(spec, {
        client: services.models(spec.provider),
        tools: services.tools,
        fileRoot: services.fileRoot,
        pricer: services.pricer ?? null,
        describe: services.describe,
      });
    case 'human':
      return new HumanAgent(spec);
    case 'scripted':
      return new ScriptedAgent(spec);
    case 'team':
      return new TeamAgent(spec, services.runNested);
    default:
      return assertNever(spec.type);
  }
}
