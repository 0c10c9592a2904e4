import type { FleetInput } from './fleet';

type AgentInput = FleetInput['agents'][number];

/**
 * A session's fleet as a new fleet that runs ("Fork as new fleet"). A team agent has no prompt or
 * model of its own in a run, yet one rebuilt from a trace may carry them: an agent seen invoking
 * others inside its own span (a supervisor and its sub-agents) is recorded as their team, keeping
 * its system prompt and model. Such a team gets a lead that runs them, a member `<name>-lead`
 * with that prompt and model, in a fan-out (`parallel`): every member answers the team's task, to
 * the lead, who answers the team's caller with what they said. Unlike the traced supervisor, the
 * lead does not choose whom to ask or write their questions, and speaks once, last: the fleet
 * format has no team whose lead speaks first and then calls members as it likes, and this is the
 * closest shape in which the lead runs its own prompt and model on its members' work. Nested
 * teams are handled at every depth; everything else is kept as it is. Pure.
 */
export function forkableFleet(fleet: FleetInput): FleetInput {
  return { ...fleet, agents: fleet.agents.map(forkableAgent) };
}

function forkableAgent(agent: AgentInput): AgentInput {
  if (agent.type !== 'team' || !agent.fleet) return agent;
  const nested = forkableFleet(agent.fleet);
  const { systemPrompt, provider, ...team } = agent;
  if (!systemPrompt && !provider) return { ...agent, fleet: nested };
  // Not the team's own name: inside the team, that name would be the lead, not the team's caller.
  const names = new Set(nested.agents.map((member) => member.name));
  let leadName = `${agent.name.slice(0, 59)}-lead`;
  for (let n = 2; names.has(leadName); n++) leadName = `${agent.name.slice(0, 55)}-lead${n}`;
  const lead: AgentInput = {
    name: leadName,
    type: 'llm',
    description: agent.description ?? '',
    ...(systemPrompt ? { systemPrompt } : {}),
    ...(provider ? { provider } : {}),
  };
  return {
    ...team,
    fleet: {
      ...nested,
      agents: [...nested.agents, lead],
      team: {
        pattern: 'parallel',
        workers: nested.agents.map((member) => member.name),
        aggregator: leadName,
      },
    },
  };
}
