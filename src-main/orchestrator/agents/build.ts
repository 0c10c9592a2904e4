import { assertNever, type AgentSpec, type UsagePricer } from '@shared/domain';
import { SCRIPTED_PROVIDER, type ModelClientFactory } from '../../llm';
import type { Agent } from './agent';
import { HumanAgent } from './human-agent';
import { LlmAgent } from './llm-agent';
import { ScriptedAgent } from './scripted-agent';
import { TeamAgent, type NestedTeamRunner } from './team-agent';
import type { ToolCallServices } from './tool-calls';

export interface AgentBuildServices extends ToolCallServices {
  models: ModelClientFactory;
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
      if (spec.provider.id === SCRIPTED_PROVIDER) return new ScriptedAgent(spec, toolServices(services));
      return new LlmAgent(spec, {
        ...toolServices(services),
        client: services.models(spec.provider),
        pricer: services.pricer ?? null,
        describe: services.describe,
      });
    case 'human':
      return new HumanAgent(spec);
    case 'scripted':
      return new ScriptedAgent(spec, toolServices(services));
    case 'team':
      return new TeamAgent(spec, services.runNested);
    default:
      return assertNever(spec.type);
  }
}

function toolServices(services: AgentBuildServices): ToolCallServices {
  return {
    tools: services.tools,
    fileRoot: services.fileRoot,
    approveAll: services.approveAll,
    onServerError: services.onServerError,
  };
}
