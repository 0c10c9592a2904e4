import type { AgentChange, ForkChange, ProviderId } from '@shared/contract';
import {
  assertNever,
  fleetMembers,
  type AgentSpec,
  type Fleet,
  type ProviderRef,
  type TerminationSpec,
} from '@shared/domain';
import { AppError } from '../handlers/errors';

/** What a provider preset from Settings gives an agent: where it is and which key it reads. */
export interface ProviderPreset {
  baseUrl: string;
  apiKeyEnv: string | null;
  defaultModel: string;
}

/** Addresses of LLM agents (nested ones as `team/agent`) that have no provider to run on. */
export function unmappedAgents(fleet: Fleet): string[] {
  return fleetMembers(fleet)
    .filter(({ agent }) => agent.type === 'llm' && !agent.provider)
    .map((member) => member.address);
}

/** Every agent address of a fleet, nested ones included. */
function addresses(fleet: Fleet): string[] {
  return fleetMembers(fleet).map((member) => member.address);
}

/** The fleet with the agent at `path` replaced (nested fleets are copied along the way). */
function replaceAgent(fleet: Fleet, path: readonly string[], change: (agent: AgentSpec) => AgentSpec): Fleet {
  const [head, ...rest] = path;
  const index = fleet.agents.findIndex((agent) => agent.name === head);
  const agent = fleet.agents[index];
  if (agent === undefined) throw new Error(`No agent ${String(head)}`);
  let next: AgentSpec;
  if (rest.length === 0) next = change(agent);
  else if (agent.fleet) next = { ...agent, fleet: replaceAgent(agent.fleet, rest, change) };
  else throw new Error(`${agent.name} has no nested team`);
  const agents = [...fleet.agents];
  agents[index] = next;
  return { ...fleet, agents };
}

function findAgent(fleet: Fleet, path: readonly string[]): AgentSpec | undefined {
  const [head, ...rest] = path;
  const agent = fleet.agents.find((candidate) => candidate.name === head);
  if (!agent || rest.length === 0) return agent;
  return agent.fleet ? findAgent(agent.fleet, rest) : undefined;
}

const shorten = (text: string, max = 40) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Applies agent changes (a fork's edits, or providers given to an imported session's agents) and
 * says what each changed. `preset` resolves a provider preset from Settings. Throws invalid-input
 * for an unknown agent or a setting the agent cannot have.
 */
export function applyAgentChanges(
  fleet: Fleet,
  changes: readonly AgentChange[],
  preset: (id: ProviderId) => ProviderPreset,
): { fleet: Fleet; changes: ForkChange[] } {
  let result = fleet;
  const described: ForkChange[] = [];
  for (const change of changes) {
    const path = change.agent.split('/');
    const agent = findAgent(result, path);
    if (!agent) {
      throw new AppError(
        'invalid-input',
        `The fleet has no agent "${change.agent}" (its agents: ${addresses(result).join(', ')}).`,
      );
    }
    const touchesModel =
      change.provider !== undefined || change.model !== undefined || change.temperature !== undefined;
    if (agent.type !== 'llm' && (touchesModel || change.systemPrompt !== undefined)) {
      throw new AppError(
        'invalid-input',
        `${change.agent} is a ${agent.type} agent; only LLM agents have a system prompt, provider, model or temperature.`,
      );
    }
    let provider: ProviderRef | undefined = agent.provider;
    if (change.provider !== undefined) {
      const chosen = preset(change.provider);
      provider = {
        id: change.provider,
        baseUrl: chosen.baseUrl,
        ...(chosen.apiKeyEnv ? { apiKeyEnv: chosen.apiKeyEnv } : {}),
        model: change.model ?? chosen.defaultModel,
        ...(agent.provider?.temperature !== undefined ? { temperature: agent.provider.temperature } : {}),
        ...(agent.provider?.maxTokens !== undefined ? { maxTokens: agent.provider.maxTokens } : {}),
      };
      if (provider.model.trim() === '') {
        throw new AppError(
          'invalid-input',
          `Provider ${change.provider} has no default model in Settings; give ${change.agent} a model.`,
        );
      }
      if (agent.provider?.id !== provider.id)
        described.push({
          field: 'provider',
          agent: change.agent,
          summary: `${change.agent}: provider ${agent.provider?.id ?? 'none'} -> ${provider.id}`,
        });
    } else if (change.model !== undefined) {
      if (!provider) {
        throw new AppError(
          'invalid-input',
          `${change.agent} has no provider yet; choose one along with the model.`,
        );
      }
      provider = { ...provider, model: change.model };
    }
    if (change.model !== undefined && agent.provider?.model !== change.model)
      described.push({
        field: 'model',
        agent: change.agent,
        summary: `${change.agent}: model ${agent.provider?.model ?? 'none'} -> ${change.model}`,
      });
    if (change.temperature !== undefined) {
      if (!provider) {
        throw new AppError(
          'invalid-input',
          `${change.agent} has no provider yet; choose one to set a temperature.`,
        );
      }
      const { temperature: before, ...rest } = provider;
      provider = change.temperature === null ? rest : { ...rest, temperature: change.temperature };
      if (before !== (change.temperature ?? undefined))
        described.push({
          field: 'temperature',
          agent: change.agent,
          summary: `${change.agent}: temperature ${before ?? 'default'} -> ${change.temperature ?? 'default'}`,
        });
    }
    const systemPrompt = change.systemPrompt ?? agent.systemPrompt;
    if (systemPrompt !== agent.systemPrompt)
      described.push({
        field: 'systemPrompt',
        agent: change.agent,
        summary: `${change.agent}: system prompt "${shorten(systemPrompt.replace(/\s+/g, ' ').trim())}"`,
      });
    result = replaceAgent(result, path, (current) => ({
      ...current,
      systemPrompt,
      ...(provider ? { provider } : {}),
    }));
  }
  return { fleet: result, changes: described };
}

/** The fleet with new stop conditions, and how to say so. */
export function replaceTermination(
  fleet: Fleet,
  termination: TerminationSpec,
): { fleet: Fleet; change: ForkChange } {
  return {
    fleet: { ...fleet, termination },
    change: {
      field: 'termination',
      agent: null,
      summary: `stop conditions: ${describeTermination(termination)}`,
    },
  };
}

/** A short description of a termination spec: `max-messages 12 or text-mention "DONE"`. */
export function describeTermination(spec: TerminationSpec): string {
  switch (spec.type) {
    case 'max-messages':
      return `max-messages ${spec.max}`;
    case 'text-mention':
      return `text-mention "${shorten(spec.text, 20)}"`;
    case 'token-budget':
      return `token-budget ${spec.maxTokens}`;
    case 'cost-budget':
      return `cost-budget $${spec.maxCost}`;
    case 'agent-token-budget':
      return `agent-token-budget ${spec.maxTokens}`;
    case 'timeout':
      return `timeout ${spec.seconds}s`;
    case 'handoff':
      return `handoff to ${spec.target}`;
    case 'stop-message':
    case 'external':
      return spec.type;
    case 'source-match':
      return `source-match ${spec.sources.join(', ')}`;
    case 'and':
      return spec.conditions.map(describeTermination).join(' and ');
    case 'or':
      return spec.conditions.map(describeTermination).join(' or ');
    default:
      return assertNever(spec);
  }
}
