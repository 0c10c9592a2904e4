import { describe, expect, it } from 'vitest';
import { fleetMembers, fleetProviders, parseFleet, type FleetInput } from '@shared/domain';

const nested: FleetInput = {
  version: 1,
  name: 'Nested',
  agents: [
    { name: 'lead', type: 'llm', provider: { id: 'openai', model: 'a' } },
    {
      name: 'crew',
      type: 'team',
      fleet: {
        version: 1,
        name: 'Crew',
        agents: [
          { name: 'one', type: 'scripted', script: [{ content: 'hi' }] },
          { name: 'two', type: 'llm', provider: { id: 'ollama', model: 'b' } },
        ],
        team: { pattern: 'sequential' },
      },
    },
    { name: 'last', type: 'human' },
  ],
  team: { pattern: 'sequential' },
};

describe('a fleet as a flat list of agents', () => {
  it('lists every agent depth first, a team followed by its members as team/member', () => {
    expect(fleetMembers(nested).map((member) => member.address)).toEqual([
      'lead',
      'crew',
      'crew/one',
      'crew/two',
      'last',
    ]);
  });

  it('hands back each agent as written, and the providers of nested agents in the same order', () => {
    const parsed = parseFleet(nested);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(
      fleetMembers(parsed.fleet).find((member) => member.address === 'crew/two')?.agent.provider?.id,
    ).toBe('ollama');
    expect(fleetProviders(parsed.fleet).map((provider) => provider.id)).toEqual(['openai', 'ollama']);
  });
});
