import type { FleetInput } from '@shared/domain';
import type { AgentInfo } from './transcript-state';

type AgentInput = FleetInput['agents'][number];

interface Node {
  info: AgentInfo | null;
  children: Map<string, Node>;
}

/**
 * The agents a trace showed as a fleet's agent list, in order of first appearance. Agent ids with a
 * team path (`research/analyst`, from a Fleetscope export) become team agents holding nested
 * fleets, so the grouping survives when the fleet itself did not arrive.
 */
export function inferredAgents(agents: readonly AgentInfo[]): AgentInput[] {
  const root: Node = { info: null, children: new Map() };
  for (const agent of agents) {
    let node = root;
    for (const part of agent.name.split('/')) {
      let child = node.children.get(part);
      if (!child) {
        child = { info: null, children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.info = agent;
  }
  return specs(root);
}

function specs(node: Node): AgentInput[] {
  return [...node.children].map(([name, child]) => {
    const info = child.info;
    const description = info?.description ?? '';
    if (child.children.size === 0) {
      return {
        name,
        type: 'llm',
        description,
        ...(info?.systemPrompt ? { systemPrompt: info.systemPrompt } : {}),
        ...(info?.model ? { provider: { id: info.provider ?? 'custom', model: info.model } } : {}),
      };
    }
    const members = specs(child);
    // An agent that invoked others inside its own span is their team, and keeps its own prompt
    // and model for the reader (a team agent's run does not use them; "Fork as new fleet" gives
    // the team a lead that does, `forkableFleet`).
    return {
      name,
      type: 'team',
      description,
      ...(info?.systemPrompt ? { systemPrompt: info.systemPrompt } : {}),
      ...(info?.model ? { provider: { id: info.provider ?? 'custom', model: info.model } } : {}),
      fleet: {
        version: 1,
        name,
        agents: members,
        team: { pattern: 'sequential', order: members.map((member) => member.name) },
      },
    };
  });
}
